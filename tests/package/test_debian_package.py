"""The Debian package (debian/): `dpkg-buildpackage -us -uc -b` in a copy of the source tree (the
checkout stays clean), lintian on the result, its files against usdt's own install
(installed-files.txt) and Debian's documentation, every path of usdt's that its manual pages, its
commands' --help and its documents name against its files, then, in a clean Debian 12 root and a clean Debian
13 root, what a user does with it (debian_package_in_root.sh): `apt-get install ./usdt_*_all.deb`
with its dependencies from the archive, the example project built against it with CMake and
with Make, traced, code written for systemtap's sys/sdt.h built against usdt's (pkg-config,
usdt::sdt), systemtap-sdt-dev installed beside it, `apt-get remove --purge usdt`
leaving none of its files.

The roots are debian_roots.py's, cached, with what the test needs beyond the package's
dependencies (ROOT_PACKAGES); each run installs into a throwaway layer over them, so each starts
clean. Building them takes a minute or two each, the first time. Needs root, debootstrap,
dpkg-buildpackage, debhelper, dh-python, lintian and Debian's archive: else the package tests
skip with the reason, which USDT_REQUIRE_TRACERS=1 turns into a failure.
"""

import fnmatch
import gzip
import re
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

import debian_roots
import package_support as package
import usdt_testing
import usdtgen

# In the roots beside the package's own dependencies, which apt-get takes from the archive at
# each run: the example's build tools, and bpftrace (the package only recommends it).
ROOT_PACKAGES = ("bpftrace", "cmake", "g++", "gcc", "make", "pkg-config")
# What building the package takes: the tool, and the Debian package that has it.
BUILD_TOOLS = (("dpkg-buildpackage", "dpkg-dev"), ("dh", "debhelper"), ("dh_python3", "dh-python"),
               ("lintian", "lintian"))
IN_ROOT_SCRIPT = Path(__file__).resolve().parent / "debian_package_in_root.sh"
# A path of usdt's as a manual page or a document names it: under /usr, or under the prefix
# (`<prefix>/libexec/usdt/bin`, which the package's prefix makes /usr/libexec/usdt/bin).
USDT_PATH = re.compile(r"(?:/usr|<prefix>)(?:/[\w.*+-]+)*/[\w.*+-]*usdt[\w.*+/-]*")


def usdt_paths(text: str):
    """The paths of usdt's `text` names, as the package would hold them; troff's escapes
    (`\\-`, `\\fB`) are read as the page shows them."""
    text = re.sub(r"\\f[BIRP]|\\&", "", text).replace("\\-", "-")
    return {path.replace("<prefix>", "/usr").rstrip("./") for path in USDT_PATH.findall(text)}


def changelog_version(source: Path) -> str:
    """The version of debian/changelog's latest entry: `usdt (VERSION) suite; ...`."""
    first_line = (source / "debian" / "changelog").read_text().splitlines()[0]
    match = re.match(r"usdt \(([^)]+)\) ", first_line)
    if not match:
        raise AssertionError(f"debian/changelog starts with {first_line!r}, not 'usdt (VERSION) ...'")
    return match.group(1)


class VersionTest(unittest.TestCase):
    def test_changelog_says_the_generators_version(self):
        # A native package: the Debian version is usdt's own (debian/rules stops on a mismatch too).
        self.assertEqual(changelog_version(package.SETUP.source_dir), usdtgen.VERSION,
                         "debian/changelog and usdtgen/__init__.py disagree: add a changelog entry (dch -v)")

    def test_install_instructions_name_this_versions_package(self):
        for document in ("README.md", "docs/cmake.md"):
            text = (package.SETUP.source_dir / document).read_text()
            self.assertEqual(set(re.findall(r"usdt_([0-9][^_\s]*)_all\.deb", text)), {usdtgen.VERSION}, document)


def _unavailable(reason: str):
    if usdt_testing.tracers_required():
        raise AssertionError(f"USDT_REQUIRE_TRACERS=1 but {reason}")
    raise unittest.SkipTest(reason)


def _copy_ignoring(source: Path, *trees: Path):
    """shutil.copytree's `ignore`: version control, caches, and build trees in the source tree
    (`trees`: usdt's build tree and this test's work directory, wherever they are)."""
    def ignore(directory, names):
        ignored = {name for name in names if name in (".git", "__pycache__", "node_modules")}
        if Path(directory).resolve() == source:
            ignored |= {name for name in names if name == "build" or name.startswith("obj-")}
        return ignored | {name for name in names if (Path(directory) / name).resolve() in trees}
    return ignore


class DebianPackageTest(unittest.TestCase):
    deb: Path
    changes: Path

    @classmethod
    def setUpClass(cls):
        reason = debian_roots.unavailable_reason()
        missing = [f"{tool} is not installed (Debian: apt-get install {debian_package})"
                   for tool, debian_package in BUILD_TOOLS if shutil.which(tool) is None]
        if reason or missing:
            _unavailable("; ".join(filter(None, [reason, *missing])))
        setup = package.SETUP
        source = setup.work_dir / "source" / "usdt"
        shutil.copytree(setup.source_dir, source, symlinks=True,
                        ignore=_copy_ignoring(setup.source_dir, setup.build_dir, setup.work_dir))
        build_dependencies = subprocess.run(["dpkg-checkbuilddeps"], cwd=source, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, text=True)
        if build_dependencies.returncode != 0:
            _unavailable(build_dependencies.stdout.strip())
        package.run(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=source)
        version = changelog_version(source)
        cls.deb = source.parent / f"usdt_{version}_all.deb"
        cls.changes = next(source.parent.glob(f"usdt_{version}_*.changes"))

    def test_lintian_reports_no_error_or_warning(self):
        # A tag that stays would be overridden in debian/usdt.lintian-overrides, with its reason.
        result = subprocess.run(["lintian", "--display-info", str(self.changes)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(result.stdout, end="")
        tags = [line for line in result.stdout.splitlines() if line.startswith(("E:", "W:"))]
        self.assertEqual(tags, [], result.stdout)

    def test_holds_the_cmake_install_and_the_docs(self):
        # usdt's own install (installed-files.txt) under /usr, but its byte-compiled modules,
        # which py3compile writes at installation; then Debian's documentation.
        listing = package.run(["dpkg-deb", "--contents", self.deb]).stdout.splitlines()
        files = {line.split()[5].lstrip("./") for line in listing if not line.startswith("d")}
        golden = (Path(__file__).resolve().parent / "installed-files.txt").read_text().splitlines()
        expected = {f"usr/{path}" for path in golden if path and not path.startswith("#") and "__pycache__" not in path}
        debian_only = ("usr/share/doc/usdt/", "usr/share/man/man1/", "usr/share/python3/runtime.d/")
        self.assertEqual({path for path in files if not path.startswith(debian_only)}, expected)
        self.assertLessEqual({"usr/share/doc/usdt/README.md", "usr/share/doc/usdt/copyright",
                              "usr/share/doc/usdt/docs/cmake.md", "usr/share/man/man1/usdt.1.gz",
                              "usr/share/man/man1/usdt-dtrace.1.gz"}, files)

    def test_every_path_of_usdt_that_it_names_is_in_it(self):
        # What the manual pages, the commands' --help and the documents in /usr/share/doc/usdt
        # tell a user to open or run, read from the package itself: each must be one of its paths.
        listing = package.run(["dpkg-deb", "--contents", self.deb]).stdout.splitlines()
        paths = {"/" + line.split()[5].lstrip("./").rstrip("/") for line in listing}
        contents = package.SETUP.work_dir / "contents"
        package.run(["dpkg-deb", "-x", self.deb, contents])
        texts = {str(page.relative_to(contents)): gzip.decompress(page.read_bytes()).decode()
                 for page in contents.glob("usr/share/man/man1/*.1.gz")}
        texts |= {str(document.relative_to(contents)): document.read_text()
                  for document in contents.glob("usr/share/doc/usdt/**/*.md")}
        # The package's own commands, not the source tree's modules CTest's PYTHONPATH names.
        environment = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ""}
        for command in (["usdt-dtrace"], ["usdt"], ["usdt", "list"], ["usdt", "trace"]):
            result = package.run([contents / "usr" / "bin" / command[0], *command[1:], "--help"],
                                 environment=environment)
            texts[f"{' '.join(command)} --help"] = result.stdout
        self.assertGreaterEqual(len(texts), 2 + 10 + 4)
        named = {(where, path) for where, text in texts.items() for path in usdt_paths(text)}
        self.assertIn(("usr/share/man/man1/usdt.1.gz", "/usr/share/doc/usdt/docs/tracing.md"), named)
        self.assertEqual(sorted(f"{where} names {path}" for where, path in named
                                if not fnmatch.filter(paths, path)), [])

    def run_in_clean_root(self, suite: str):
        try:
            directory = debian_roots.root(suite, ROOT_PACKAGES)
            # The package's dependencies come from the archive the root was made from, at each run.
            mirror = debian_roots.host_mirror()
            if mirror is None:
                raise debian_roots.RootUnavailable("no Debian archive in the host's apt sources; set USDT_DEBIAN_MIRROR")
            debian_roots.check_mirror(mirror, suite)
        except debian_roots.RootUnavailable as error:
            _unavailable(f"no Debian {suite} root: {error}")
        print(f"--- {suite}: {directory}, in a throwaway layer", flush=True)
        example = package.SETUP.source_dir / "example-project"
        result = debian_roots.run_in_root(
            suite, ["sh", str(IN_ROOT_SCRIPT), str(self.deb), str(example), usdtgen.VERSION,
                    str(IN_ROOT_SCRIPT.parent / "sdt_consumer")],
            binds=[self.deb.parent, package.SETUP.source_dir, IN_ROOT_SCRIPT.parent], packages=ROOT_PACKAGES,
            throwaway=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=20 * 60)
        print(result.stdout, end="", flush=True)
        self.assertEqual(result.returncode, 0, f"in {suite}: {IN_ROOT_SCRIPT.name} exited {result.returncode}")
        self.assertIn("=== done", result.stdout)

    def test_installs_builds_traces_and_purges_in_bookworm(self):
        self.run_in_clean_root("bookworm")

    def test_installs_builds_traces_and_purges_in_trixie(self):
        self.run_in_clean_root("trixie")


if __name__ == "__main__":
    package.parse_arguments()
    sys.stdout.reconfigure(line_buffering=True)
    usdt_testing.main()
