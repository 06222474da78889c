"""The generator's outputs: the same bytes wherever and however it runs, and never half-written.

Determinism: the same provider files (one plain, one that #includes a header), copied to two
different directories, generated from different working directories, with the input named
relatively and absolutely, under different locales, time zones, umasks and PYTHONHASHSEED:
every output is byte-identical and names neither directory.

Atomicity: a generator killed (SIGKILL) at points spread over a large generation leaves each
output as it was before or complete, never truncated; one whose write fails (file size limit)
exits 1 with a one-line error, keeps the old outputs and leaves no temporary file behind.

Depfile: --depfile lists the .d file and every file it #includes, by absolute path (spaces
escaped), for CMake's DEPFILE; a file without directives depends on itself only.
"""

import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import usdt_testing

REPOSITORY = Path(__file__).resolve().parents[2]
ALL_TYPES = REPOSITORY / "tests" / "embedding" / "strict_warnings" / "all_types.d"

INCLUDED = "#define LOAD_TYPE uint32_t\n"
PREPROCESSED = """\
#include "load.h"
#if !defined(WITH_DEBUG)
provider preprocessed {
    probe load(LOAD_TYPE load, const char *name);
    probe idle(void);
};
#endif
"""
# Each output kind's command-line option and file name.
OUTPUTS = {"--header": "{}.h", "--bpftrace": "{}.bt", "--systemtap": "{}.stp", "--perf": "{}.perf.sh"}


def generate(input_path, output_directory, cwd=None, env_changes=None, preexec_fn=None, extra=()):
    """Runs the generator as a build would; returns the CompletedProcess."""
    stem = Path(input_path).stem
    options = []
    for option, name in OUTPUTS.items():
        options += [option, str(Path(output_directory, name.format(stem)))]
    env = dict(os.environ, PYTHONPATH=str(REPOSITORY), PYTHONDONTWRITEBYTECODE="1", **(env_changes or {}))
    return subprocess.run([sys.executable, "-m", "usdtgen", str(input_path), *options, *extra],
                          cwd=cwd, env=env, preexec_fn=preexec_fn, capture_output=True, text=True, check=False)


def files_in(directory):
    return {path.name: path.read_bytes() for path in sorted(Path(directory).iterdir())}


def big_provider(probes):
    lines = ["provider big {"]
    lines += [f"    probe p{index}(int a, long b, const char *c, uint64_t d, void *e, int8_t f);"
              for index in range(probes)]
    return "\n".join(lines + ["};", ""])


class GeneratedFilesTestCase(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-generated-"))
        self.addCleanup(shutil.rmtree, self.directory)

    def write_sources(self, directory):
        directory.mkdir(parents=True)
        shutil.copy(ALL_TYPES, directory)
        (directory / "load.h").write_text(INCLUDED)
        (directory / "preprocessed.d").write_text(PREPROCESSED)
        return directory


class DeterminismTest(GeneratedFilesTestCase):
    def test_same_bytes_across_directories_and_environments(self):
        first_sources = self.write_sources(self.directory / "first" / "src")
        second_sources = self.write_sources(self.directory / "second" / "elsewhere" / "src")
        first_environment = {"LC_ALL": "C", "TZ": "UTC", "PYTHONHASHSEED": "0", "SOURCE_DATE_EPOCH": "0"}
        second_environment = {"LC_ALL": "C.UTF-8", "LANG": "tr_TR.UTF-8", "TZ": "Pacific/Chatham",
                              "PYTHONHASHSEED": "4242", "SOURCE_DATE_EPOCH": "1700000000"}
        for name in ("all_types.d", "preprocessed.d"):
            with self.subTest(provider=name):
                first_out = self.directory / "first" / "out" / name
                second_out = self.directory / "second" / "out" / name
                # Relative input from its own directory, then absolute input from an unrelated one.
                first = generate(name, first_out, cwd=first_sources, env_changes=first_environment)
                second = generate(second_sources / name, second_out, cwd=self.directory,
                                  env_changes=second_environment, preexec_fn=lambda: os.umask(0o077))
                self.assertEqual((first.returncode, first.stderr), (0, ""))
                self.assertEqual((second.returncode, second.stderr), (0, ""))
                first_files, second_files = files_in(first_out), files_in(second_out)
                self.assertEqual(len(first_files), len(OUTPUTS))
                self.assertEqual(first_files, second_files)
                for text in first_files.values():
                    self.assertNotIn(str(self.directory).encode(), text)

    def test_repeated_runs_give_the_same_bytes(self):
        sources = self.write_sources(self.directory / "src")
        outputs = []
        for seed in ("1", "2", "3"):
            output = self.directory / f"out{seed}"
            self.assertEqual(generate(sources / "preprocessed.d", output,
                                      env_changes={"PYTHONHASHSEED": seed}).returncode, 0)
            outputs.append(files_in(output))
        self.assertEqual(outputs[0], outputs[1])
        self.assertEqual(outputs[0], outputs[2])


class AtomicWriteTest(GeneratedFilesTestCase):
    def setUp(self):
        super().setUp()
        self.provider = self.directory / "big.d"
        self.output = self.directory / "out"
        # The outputs of a small version of the file: what an earlier build left.
        self.provider.write_text(big_provider(3))
        self.assertEqual(generate(self.provider, self.output).returncode, 0)
        self.old = files_in(self.output)
        self.provider.write_text(big_provider(1000))

    def assert_old_or_new(self, new):
        current = files_in(self.output)
        self.assertEqual(sorted(current), sorted(self.old), "a temporary file was left behind or an output lost")
        for name, text in current.items():
            self.assertIn(text, (self.old[name], new[name]), f"{name} is neither the old nor the new file")

    def test_killed_generator_leaves_old_or_complete_outputs(self):
        new_directory = self.directory / "new"
        started = time.monotonic()
        self.assertEqual(generate(self.provider, new_directory).returncode, 0)
        duration = time.monotonic() - started
        new = files_in(new_directory)
        stem_files = sorted(self.old)
        env = dict(os.environ, PYTHONPATH=str(REPOSITORY), PYTHONDONTWRITEBYTECODE="1")
        arguments = [sys.executable, "-m", "usdtgen", str(self.provider)]
        for option, name in OUTPUTS.items():
            arguments += [option, str(self.output / name.format("big"))]
        # Most of the run is rendering; the writes come last, so the kills crowd towards the end.
        for fraction in (0.5, 0.8, 0.9, 0.95, 1.0):
            with self.subTest(killed_after=f"{fraction:.0%} of a run"):
                for name in stem_files:
                    (self.output / name).write_bytes(self.old[name])
                generator = subprocess.Popen(arguments, env=env)
                time.sleep(duration * fraction)
                generator.send_signal(signal.SIGKILL)
                generator.wait()
                leftovers = [path for path in self.output.iterdir() if path.name.startswith(".")]
                for path in leftovers:
                    # SIGKILL gives no chance to clean up; a writer's private directory is never
                    # an output a build reads.
                    shutil.rmtree(path)
                self.assert_old_or_new(new)

    def test_failed_write_keeps_old_outputs(self):
        def limit_file_size():
            # The write then fails with EFBIG instead of the process being killed by SIGXFSZ.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
        result = generate(self.provider, self.output, preexec_fn=limit_file_size)
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"\Ausdtgen: error: cannot write \S+big\.h: File too large\n\Z")
        self.assertEqual(files_in(self.output), self.old)


class DepfileTest(GeneratedFilesTestCase):
    """--depfile: what CMake's DEPFILE reads, so that editing an #include'd file regenerates."""

    def test_lists_the_included_files_by_absolute_path(self):
        sources = self.write_sources(self.directory / "with space" / "src")
        (sources / "types dir").mkdir()
        (sources / "types dir" / "extra.h").write_text("#define EXTRA int\n")
        (sources / "preprocessed.d").write_text('#include <extra.h>\n' + PREPROCESSED)
        output = self.directory / "out"
        result = generate("preprocessed.d", output, cwd=sources,
                          extra=["--depfile", str(output / "preprocessed.deps"), "-I", "types dir"])
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        text = (output / "preprocessed.deps").read_text()
        escaped = str(sources).replace(" ", "\\ ")
        self.assertTrue(text.startswith(str(output / "preprocessed.h").replace(" ", "\\ ") + ": \\\n"), text)
        listed = [line.rstrip("\\").strip() for line in text.splitlines()[1:]]
        for dependency in ("preprocessed.d", "load.h", "types\\ dir/extra.h"):
            self.assertIn(f"{escaped}/{dependency}", listed, text)

    def test_a_file_without_directives_depends_on_itself_only(self):
        output = self.directory / "out"
        result = generate(ALL_TYPES, output, extra=["--depfile", str(output / "all_types.deps")])
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual((output / "all_types.deps").read_text(),
                         f"{output / 'all_types.h'}: \\\n  {ALL_TYPES}\n")


if __name__ == "__main__":
    usdt_testing.main()
