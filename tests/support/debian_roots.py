"""Other Debian releases on this machine: roots that debootstrap builds, cached outside the
clone, and commands run inside them on this kernel, so that tests meet the tracers those
releases ship (bpftrace 0.23 in trixie, 0.27 in sid) with their real binaries.

A root is keyed by its suite and a hash of its package list, under CACHE_DIRECTORY
(USDT_TEST_ROOTS overrides it): `<suite>-<hash>`. It counts as built when its marker exists,
written last; a root without it is half built (an interrupted debootstrap) and is rebuilt. A
lock file beside each root, held exclusively to build and shared to run, keeps two tests from
building one root at once or one from rebuilding a root another runs in.

A command runs in a private mount namespace (unshare), where the root gets a /dev of its own
(a tmpfs with a few device nodes: a bind of the host's /dev would put the host's device nodes
one `rm -rf` away), proc, sysfs, tracefs, debugfs and the host directories asked for, bound
at the same paths. Those mounts live and die with the namespace, so nothing is left mounted
on the host, whatever happens to the command. With `throwaway`, the command sees the root
through an overlay whose upper layer is a tmpfs of the namespace: what it installs or changes
goes with the namespace, and the next command starts from the root as built.

As a command: `debian_roots.py build SUITE [PACKAGE...]`, `debian_roots.py run SUITE [--bind
DIR]... -- COMMAND...` (run in the root of the default packages, TRACING_PACKAGES).
"""

import argparse
import contextlib
import fcntl
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator, Mapping, Optional, Sequence

CACHE_DIRECTORY = Path(os.environ.get("USDT_TEST_ROOTS", "/var/cache/usdt-test-roots"))
MARKER = ".usdt-root-complete"
# Part of every root's key: changing how roots are made rebuilds them.
RECIPE_VERSION = "1"

# What `usdt trace` and tests/tool's modules use in a root: bpftrace, usdttool's imports
# (jinja2 for the generator's templates), pyelftools (the tests' reference reader of ELF files,
# tests/support/elftools_reading.py), readelf (elf_notes.py), pgrep (procps) and setpriv
# (util-linux, essential). A change here makes every root again.
TRACING_PACKAGES = ("bpftrace", "python3", "python3-jinja2", "python3-pyelftools", "binutils", "procps")

# What building usdt and running its test suite needs in a root (suite_in_root.py): the
# `tests` packages of tests/install-dependencies.sh but for the layers that do not apply there
# (suite_in_root.NOT_APPLYING: cross toolchains, qemu, Node.js, bcc, SystemTap), one list per
# suite where releases name or ship them differently.
_SUITE_TEST_PACKAGES = (*TRACING_PACKAGES, "gcc", "g++", "clang", "lld", "cmake", "make", "ninja-build", "gdb",
                        "linux-perf", "valgrind", "doctest-dev", "meson", "autoconf", "pkg-config",
                        "systemtap-sdt-dev", "dpkg-dev", "clang-tidy", "python3-pyflakes")
SUITE_TEST_PACKAGES = {
    # No mold before bookworm; gold is still part of binutils; Clang 11's LTO plugin for GNU ld
    # and gold (LLVMgold.so) comes with llvm-11-dev.
    "bullseye": (*_SUITE_TEST_PACKAGES, "llvm-11-dev"),
    # binutils 2.44 moved gold into a package of its own; Clang 19 its sanitizers' runtimes
    # (clang only recommends them).
    "trixie": (*_SUITE_TEST_PACKAGES, "mold", "binutils-gold", "libclang-rt-dev"),
    "sid": (*_SUITE_TEST_PACKAGES, "mold", "binutils-gold", "libclang-rt-dev"),
}

# The device nodes a root's own /dev gets: name, type, major, minor, mode.
DEVICE_NODES = (("null", "c", 1, 3, "666"), ("zero", "c", 1, 5, "666"), ("full", "c", 1, 7, "666"),
                ("random", "c", 1, 8, "666"), ("urandom", "c", 1, 9, "666"), ("tty", "c", 5, 0, "666"))

# The environment a command starts with inside: the host's PATH may name directories the root
# has not (pyenv's shims).
ROOT_ENVIRONMENT = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
                    "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"}

BUILD_TIMEOUT = 30 * 60


class RootUnavailable(Exception):
    """No root can be built here: what is missing (root, debootstrap, unshare, the network)."""


def unavailable_reason() -> Optional[str]:
    """Why roots cannot be built or entered here, or None when they can (the network aside:
    `root` finds out)."""
    if os.geteuid() != 0:
        return "building and entering Debian roots needs root (debootstrap, chroot, mount)"
    for tool, package in (("debootstrap", "debootstrap"), ("unshare", "util-linux"), ("chroot", "coreutils")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: apt-get install {package})"
    return None


def root_name(suite: str, packages: Sequence[str]) -> str:
    key = "\n".join([RECIPE_VERSION, *sorted(set(packages))]).encode()
    return f"{suite}-{hashlib.sha256(key).hexdigest()[:12]}"


def host_mirror() -> Optional[str]:
    """The Debian archive the host's apt uses (USDT_DEBIAN_MIRROR overrides it): the roots
    download from where this machine is known to reach."""
    if os.environ.get("USDT_DEBIAN_MIRROR"):
        return os.environ["USDT_DEBIAN_MIRROR"]
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for source in sources:
        try:
            lines = source.read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.split()
            if source.suffix == ".sources" and words[:1] == ["URIs:"] and len(words) > 1:
                uri = words[1]
            elif source.suffix != ".sources" and words[:1] == ["deb"]:
                uri = next((word for word in words[1:] if "://" in word), "")
            else:
                continue
            if uri.rstrip("/").endswith("/debian"):
                return uri.rstrip("/")
    return None


def check_mirror(mirror: str, suite: str) -> None:
    try:
        with urllib.request.urlopen(f"{mirror}/dists/{suite}/Release", timeout=20) as response:
            response.read(1)
    except (urllib.error.URLError, OSError) as error:
        raise RootUnavailable(f"cannot reach the Debian archive {mirror} for {suite}: {error}") from None


@contextlib.contextmanager
def _locked(path: Path, exclusive: bool) -> Iterator[int]:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield descriptor
    finally:
        os.close(descriptor)


def _mounted_under(directory: Path) -> list:
    prefix = str(directory).rstrip("/") + "/"
    with open("/proc/self/mountinfo") as mountinfo:
        points = [line.split()[4] for line in mountinfo]
    return [point for point in points if point == str(directory) or point.startswith(prefix)]


def _remove(directory: Path) -> None:
    """Removes a half-built root, never through a mount point (on the host: builds and commands
    mount only inside their own namespaces, so one found here is someone else's)."""
    if not directory.exists():
        return
    mounted = _mounted_under(directory)
    if mounted:
        raise RootUnavailable(f"{directory} has mounts on the host ({', '.join(mounted)}); unmount them, "
                              "then remove it with rm -rf --one-file-system")
    subprocess.run(["rm", "-rf", "--one-file-system", str(directory)], check=True)


def _in_namespace(command: Sequence[str], **keywords) -> subprocess.CompletedProcess:
    """`command` in a private mount namespace: whatever it mounts (debootstrap mounts proc and
    sysfs in its target) goes when it ends, however it ends."""
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "--", *command], **keywords)


def root(suite: str, packages: Sequence[str] = TRACING_PACKAGES, log=sys.stderr) -> Path:
    """The root of `suite` with `packages` installed, built first when it is not (and then
    the time it took said on `log`). Raises RootUnavailable when it cannot be built here."""
    reason = unavailable_reason()
    if reason:
        raise RootUnavailable(reason)
    directory = CACHE_DIRECTORY / root_name(suite, packages)
    with _locked(directory.with_name(directory.name + ".lock"), exclusive=False):
        if (directory / MARKER).exists():
            return directory
    with _locked(directory.with_name(directory.name + ".lock"), exclusive=True):
        if not (directory / MARKER).exists():
            seconds = _build(directory, suite, packages, log)
            print(f"debian_roots: built {directory} ({suite}: {' '.join(sorted(packages))}) in {seconds:.0f} s",
                  file=log, flush=True)
    return directory


def _build(directory: Path, suite: str, packages: Sequence[str], log) -> float:
    mirror = host_mirror()
    if mirror is None:
        raise RootUnavailable("no Debian archive in the host's apt sources; set USDT_DEBIAN_MIRROR")
    check_mirror(mirror, suite)
    started = time.monotonic()
    _remove(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    # The base alone, then apt inside: debootstrap's --include cannot resolve every dependency
    # (alternatives, virtual packages).
    debootstrap = _in_namespace(["debootstrap", "--variant=minbase", suite, str(directory), mirror],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=BUILD_TIMEOUT,
                                check=False)
    if debootstrap.returncode != 0:
        raise RuntimeError(f"debootstrap {suite} failed:\n{debootstrap.stdout[-4000:]}")
    # The archive this machine reaches may be a snapshot, whose Release files expire: apt
    # refuses them where debootstrap did not.
    (directory / "etc/apt/apt.conf.d/99usdt-test-root").write_text('Acquire::Check-Valid-Until "false";\n')
    install = run(directory, ["sh", "-c", "apt-get update -qq && apt-get install -y -qq --no-install-recommends "
                              + " ".join(map(shlex.quote, sorted(packages))) + " && apt-get clean"],
                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=BUILD_TIMEOUT)
    if install.returncode != 0:
        raise RuntimeError(f"apt-get install in {suite} failed:\n{install.stdout[-4000:]}")
    seconds = time.monotonic() - started
    (directory / MARKER).write_text(f"suite {suite}\npackages {' '.join(sorted(packages))}\n"
                                    f"build_seconds {seconds:.0f}\n")
    return seconds


def _mount_script(directory: Path, binds: Sequence[Path], layer: Optional[Path] = None) -> str:
    """The shell commands that give the root, in the namespace they run in, what a command
    there needs; then `exec chroot`. With `layer` (an empty host directory), the root is an
    overlay mounted there, its changes kept in a tmpfs of the namespace."""
    lines = ["set -e"]
    if layer is None:
        root_path = directory
    else:
        tmpfs, root_path = shlex.quote(str(layer)), layer / "root"
        lines += [f"mount -t tmpfs -o mode=755 layer {tmpfs}",
                  f"mkdir {tmpfs}/upper {tmpfs}/work {tmpfs}/root",
                  f"mount -t overlay -o lowerdir={shlex.quote(str(directory))},upperdir={tmpfs}/upper,"
                  f"workdir={tmpfs}/work overlay {tmpfs}/root"]
    target = shlex.quote(str(root_path))
    lines += [f"mount -t tmpfs -o mode=755,nosuid dev {target}/dev",
             *(f"mknod -m {mode} {target}/dev/{name} {kind} {major} {minor}"
               for name, kind, major, minor, mode in DEVICE_NODES),
             f"mkdir -p {target}/dev/pts {target}/dev/shm",
             f"ln -s /proc/self/fd {target}/dev/fd",
             f"mount -t proc proc {target}/proc",
             f"mount -t sysfs sysfs {target}/sys",
             # bpftrace attaches uprobes through tracefs, and older releases look in debugfs.
             f"mount -t tracefs tracefs {target}/sys/kernel/tracing",
             f"mount -t debugfs debugfs {target}/sys/kernel/debug || true",
             f"mount -t bpf bpf {target}/sys/fs/bpf || true"]
    for bind in binds:
        inside = shlex.quote(str(root_path) + str(bind))
        lines += [f"mkdir -p {inside}", f"mount --rbind {shlex.quote(str(bind))} {inside}"]
    lines.append(f'exec chroot {target} "$@"')
    return "\n".join(lines)


def run(directory: Path, command: Sequence[str], binds: Sequence[Path] = (),
        environment: Optional[Mapping[str, str]] = None, throwaway: bool = False,
        **keywords) -> subprocess.CompletedProcess:
    """`command` run in the root at `directory` with `binds` (host directories) at the same
    paths inside: subprocess.run's result. `environment` adds to ROOT_ENVIRONMENT. `throwaway`:
    the command's changes to the root (apt-get install...) are gone when it ends."""
    keywords.setdefault("check", False)
    binds = [Path(bind).resolve() for bind in binds]
    # A directory inside another bound one is already there (the build tree in the source tree).
    binds = [bind for bind in binds if not any(other in bind.parents for other in binds)]
    with contextlib.ExitStack() as stack:
        # Only a mount point on the host: the namespace's tmpfs goes over it.
        layer = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="usdt-root-layer-"))) if throwaway else None
        return _in_namespace(["sh", "-c", _mount_script(directory, binds, layer), "sh", *command],
                             env={**ROOT_ENVIRONMENT, **(environment or {})}, **keywords)


def run_in_root(suite: str, command: Sequence[str], binds: Sequence[Path] = (),
                packages: Sequence[str] = TRACING_PACKAGES, environment: Optional[Mapping[str, str]] = None,
                throwaway: bool = False, **keywords) -> subprocess.CompletedProcess:
    """`command` run in `suite`'s root of `packages`, built first when it is not; the root's
    shared lock held meanwhile, so that nobody rebuilds it under the command."""
    directory = root(suite, packages)
    with _locked(directory.with_name(directory.name + ".lock"), exclusive=False):
        return run(directory, command, binds, environment, throwaway, **keywords)


def main() -> int:
    parser = argparse.ArgumentParser(description="Debian roots for usdt's tests.")
    commands = parser.add_subparsers(dest="action", required=True)
    build = commands.add_parser("build", help="build a suite's root (when it is not) and print its path")
    build.add_argument("suite")
    build.add_argument("packages", nargs="*", default=list(TRACING_PACKAGES))
    enter = commands.add_parser("run", help="run a command in a suite's root of the default packages")
    enter.add_argument("suite")
    enter.add_argument("--bind", action="append", default=[], help="a host directory to see at the same path")
    enter.add_argument("command", nargs="+")
    options = parser.parse_args()
    try:
        if options.action == "build":
            print(root(options.suite, options.packages))
            return 0
        return run_in_root(options.suite, options.command, options.bind).returncode
    except (RootUnavailable, RuntimeError) as error:
        print(f"debian_roots: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
