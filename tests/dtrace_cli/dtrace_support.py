"""What the usdt-dtrace tests share: the paths CTest passes in and running the command.

Each test module calls `parse_arguments()` before `usdt_testing.main()`: it takes the
options below off sys.argv (unittest gets the rest) and empties the work directory, so
every run starts from nothing and leaves its files to look at.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional, Sequence

OPTIONS: Optional[argparse.Namespace] = None  # set by parse_arguments()


def parse_arguments(add_options=lambda parser: None) -> argparse.Namespace:
    global OPTIONS
    parser = argparse.ArgumentParser()
    parser.add_argument("--command", type=Path, required=True, help="the build tree's usdt-dtrace")
    parser.add_argument("--source-dir", type=Path, required=True)
    parser.add_argument("--work-dir", type=Path, required=True)
    add_options(parser)
    options, rest = parser.parse_known_args()
    sys.argv[1:] = rest
    shutil.rmtree(options.work_dir, ignore_errors=True)
    options.work_dir.mkdir(parents=True)
    OPTIONS = options
    return options


def work_directory(name: str) -> Path:
    """A fresh directory for one test under the work directory."""
    directory = OPTIONS.work_dir / name
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory


def usdt_dtrace(arguments: Sequence, cwd: Path, command: Optional[Path] = None,
                environment: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """Runs usdt-dtrace as a Makefile does: the script itself, found by its path."""
    return subprocess.run([str(command or OPTIONS.command), *map(str, arguments)], cwd=cwd,
                          env=dict(os.environ, **(environment or {})), capture_output=True, text=True,
                          check=False)


def run(command: Sequence, cwd: Optional[Path] = None, environment: Optional[Dict[str, str]] = None,
        expect_status: int = 0) -> subprocess.CompletedProcess:
    """Runs `command`; a different exit status fails the test with the command's output."""
    result = subprocess.run([str(part) for part in command], cwd=cwd, env=dict(os.environ, **(environment or {})),
                            capture_output=True, text=True, check=False)
    if result.returncode != expect_status:
        raise AssertionError(
            f"{' '.join(str(part) for part in command)}\nexited {result.returncode}, expected "
            f"{expect_status}\n--- stdout\n{result.stdout}--- stderr\n{result.stderr}")
    return result


def files_in(directory: Path):
    """Every file under `directory`, hidden ones included, relative to it."""
    return sorted(str(path.relative_to(directory)) for path in directory.rglob("*") if not path.is_dir())
