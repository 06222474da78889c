"""What the package tests share: the paths CTest passes in, and running CMake, programs and readelf
(through tests/support/elf_notes.py).

Each test module calls `parse_arguments()` before `usdt_testing.main()`. CTest passes
usdt's source and build trees, the test's own scratch directory (emptied here, so every
run starts from nothing) and the CMake and generator to use for consumer projects; to a test
that consumes an installed usdt, the prefix where CTest installed it once (installed_usdt()).
"""

import argparse
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

import elf_notes
import usdt_testing


@dataclass(frozen=True)
class Setup:
    source_dir: Path   # usdt's source tree
    build_dir: Path    # usdt's build tree, the one ctest runs in
    work_dir: Path     # this test's scratch directory
    cmake: str
    generator: str
    options: argparse.Namespace  # every option, --config and the module's own too


SETUP: Optional[Setup] = None  # set by parse_arguments()


def parse_arguments(add_options=lambda parser: None) -> Setup:
    """Takes the package options, and `add_options`'s, off sys.argv (usdt_testing.parse_options)
    and empties the work dir."""
    global SETUP

    def package_options(parser):
        parser.add_argument("--source-dir", type=Path, required=True)
        parser.add_argument("--build-dir", type=Path, required=True)
        parser.add_argument("--work-dir", type=Path, required=True)
        parser.add_argument("--cmake", default="cmake")
        parser.add_argument("--generator", default="Unix Makefiles")
        parser.add_argument("--config", default="", help="the usdt build's configuration, empty when none")
        parser.add_argument("--installed-prefix", type=Path,
                            help="where the fixture usdt_installed has installed usdt (tests/CMakeLists.txt)")
        add_options(parser)
    options, _ = usdt_testing.parse_options(package_options)
    usdt_testing.fresh_directory(options.work_dir)
    SETUP = Setup(options.source_dir.resolve(), options.build_dir.resolve(),
                  options.work_dir.resolve(), options.cmake, options.generator, options)
    return SETUP


def run(command: Sequence, expect_status: int = 0, environment: Optional[Mapping[str, str]] = None,
        cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    """Runs `command` (in `environment`, else this one; in `cwd`, else this directory); a
    different exit status fails the test with the command's output."""
    result = subprocess.run([str(part) for part in command], env=environment, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != expect_status:
        where = f"in {cwd}: " if cwd else ""
        raise AssertionError(
            f"{where}{' '.join(str(part) for part in command)}\nexited {result.returncode}, expected "
            f"{expect_status}\n--- stdout\n{result.stdout}--- stderr\n{result.stderr}")
    return result


def configure(source: Path, build: Path, *definitions: str) -> None:
    """Configures a consumer project; `definitions` are `NAME=VALUE` cache entries."""
    run([SETUP.cmake, "-S", source, "-B", build, "-G", SETUP.generator,
         *(f"-D{definition}" for definition in definitions)])


def build(build_dir: Path) -> str:
    return run([SETUP.cmake, "--build", build_dir, "-j2"]).stdout


def install_usdt(prefix: Path) -> None:
    """`cmake --install` of the usdt build under test (for the fixture; tests use installed_usdt())."""
    config = SETUP.options.config
    run([SETUP.cmake, "--install", SETUP.build_dir, "--prefix", prefix,
         *(["--config", config] if config else [])])


def staging_prefix(prefix: Path) -> Path:
    """Where the fixture usdt_installed installs usdt before moving it to `prefix`."""
    return prefix.with_name(prefix.name + ".staging")


def installed_usdt() -> Path:
    """The prefix where the CTest fixture usdt_installed has installed usdt, and moved it from
    (package/install_prefix.py); the test module must be added with INSTALLED."""
    prefix = SETUP.options.installed_prefix
    if prefix is None:
        raise AssertionError("no --installed-prefix: add the test with INSTALLED (tests/CMakeLists.txt), "
                             "or run it through ctest, which installs usdt first")
    return prefix


def cache_value(build: Path, name: str) -> str:
    """A consumer's CMakeCache.txt entry."""
    cache = (build / "CMakeCache.txt").read_text()
    match = re.search(rf"^{re.escape(name)}:[A-Z]+=(.*)$", cache, re.MULTILINE)
    if not match:
        raise AssertionError(f"{name} is not in {build / 'CMakeCache.txt'}")
    return match.group(1)


def stapsdt_notes(binary: Path) -> List[Tuple[str, str, str]]:
    """(provider, name, arguments) for each stapsdt note of `binary`."""
    return [(note.provider, note.name, " ".join(note.arguments)) for note in elf_notes.notes(str(binary))]


def section_names(binary: Path) -> List[str]:
    return list(elf_notes.sections(str(binary)))


def argument_sizes(arguments: str) -> str:
    """`-4@%edi 8@%rsi` -> `-4 8`: the declared size and sign, without the operands."""
    return " ".join(re.findall(r"(-?\d+)@", arguments))
