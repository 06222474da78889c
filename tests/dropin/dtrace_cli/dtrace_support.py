"""What the usdt-dtrace tests share: the paths CTest passes in and running the command.

Each test module calls `parse_arguments()` before `usdt_testing.main()`: it takes the
options below off sys.argv (usdt_testing.parse_options) and empties the work directory, so
every run starts from nothing and leaves its files to look at.
"""

import argparse
import os
import subprocess
from pathlib import Path
from typing import Dict, Optional, Sequence

import usdt_testing

OPTIONS: Optional[argparse.Namespace] = None  # set by parse_arguments()


def parse_arguments(add_options=lambda parser: None) -> argparse.Namespace:
    global OPTIONS

    def dtrace_options(parser):
        parser.add_argument("--command", type=Path, required=True, help="the build tree's usdt-dtrace")
        parser.add_argument("--source-dir", type=Path, required=True)
        parser.add_argument("--work-dir", type=Path, required=True)
        add_options(parser)
    OPTIONS, _ = usdt_testing.parse_options(dtrace_options)
    usdt_testing.fresh_directory(OPTIONS.work_dir)
    return OPTIONS


def work_directory(name: str) -> Path:
    """A fresh directory for one test under the work directory."""
    return usdt_testing.fresh_directory(OPTIONS.work_dir / name)


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
