"""The CTest fixture timeline_viewer (tests/tool/timeline/CMakeLists.txt): `npm ci` of this
directory's package.json and package-lock.json into --viewer-dir, in the build directory,
once: a later run whose lock is the one installed keeps the install.

usage: install_viewer.py --viewer-dir DIR [unittest options]
"""

import filecmp
import shutil
import subprocess
import unittest
from pathlib import Path

import usdt_testing

HERE = Path(__file__).resolve().parent
MANIFESTS = ("package.json", "package-lock.json")
VIEWER_DIR = Path()


def installed_is_current(viewer_dir: Path) -> bool:
    """The install in `viewer_dir` came from these very manifests and finished: npm writes
    node_modules/.package-lock.json last."""
    return (viewer_dir / "node_modules" / ".package-lock.json").is_file() and all(
        (viewer_dir / name).is_file() and filecmp.cmp(HERE / name, viewer_dir / name, shallow=False)
        for name in MANIFESTS)


class InstallViewer(unittest.TestCase):
    def test_npm_ci(self):
        if installed_is_current(VIEWER_DIR):
            print(f"{VIEWER_DIR}: installed from the current package-lock.json")
            return
        usdt_testing.require_tracer(self, "npm", needs_root=False)
        usdt_testing.require_tracer(self, "node", needs_root=False, package="nodejs")
        shutil.rmtree(VIEWER_DIR, ignore_errors=True)
        VIEWER_DIR.mkdir(parents=True)
        for name in MANIFESTS:
            shutil.copyfile(HERE / name, VIEWER_DIR / name)
        # No install scripts: none of these packages needs one, and playwright-core's would
        # fetch a browser; the docs picture (render-timeline.mjs) uses Debian's chromium.
        result = subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=VIEWER_DIR,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
                                check=False)
        print(result.stdout)
        self.assertEqual(result.returncode, 0, f"npm ci in {VIEWER_DIR} failed:\n{result.stdout}")
        self.assertTrue(installed_is_current(VIEWER_DIR))


if __name__ == "__main__":
    options, _ = usdt_testing.parse_options(lambda parser: parser.add_argument("--viewer-dir", type=Path, required=True))
    VIEWER_DIR = options.viewer_dir
    usdt_testing.main()
