"""Unit tests of usdttool.bpftrace.loaded_libraries on real processes: a process stopped where
the dynamic linker's notice would stop it, whose notice's line never came, is answered; a stop
with nothing newly mapped (a user's Ctrl-Z) is left alone."""

import signal
import subprocess
import time
import unittest

import usdt_testing

from usdttool.bpftrace import loaded_libraries
from usdttool.files import process


class StoppedUnheardTest(unittest.TestCase):
    def stopped_process(self) -> subprocess.Popen:
        sleeper = subprocess.Popen(["sleep", "60"])
        self.addCleanup(sleeper.wait)
        self.addCleanup(sleeper.kill)
        sleeper.send_signal(signal.SIGSTOP)
        deadline = time.monotonic() + 5
        while not process.is_stopped(sleeper.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        return sleeper

    def libraries(self, pid: int, read_paths) -> loaded_libraries.LoadedLibraries:
        """Its state as after attaching, with the notice that stops the process, none owed."""
        libraries = loaded_libraries.LoadedLibraries.__new__(loaded_libraries.LoadedLibraries)
        libraries.pid = pid
        libraries.guard = object()
        libraries.owed = 0
        libraries.read_paths = set(read_paths)
        libraries.stop_seen_at = None
        libraries.stop_checked_at = float("-inf")
        return libraries

    def looks(self, libraries, seconds: float):
        """What stopped_unheard() says over `seconds`."""
        answers = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            answers.append(libraries.stopped_unheard())
            time.sleep(0.02)
        return answers

    def test_a_stop_with_files_mapped_since_is_a_notice_once_it_has_lasted(self):
        sleeper = self.stopped_process()
        libraries = self.libraries(sleeper.pid, ())   # every mapped file new to it
        answers = self.looks(libraries, loaded_libraries.STOP_UNHEARD_AFTER + 1.5)
        self.assertEqual(answers.count(True), 1, "answered once, then owed")
        self.assertFalse(any(answers[:int(loaded_libraries.STOP_UNHEARD_AFTER / 0.02) - 5]), "not at once")
        self.assertEqual(libraries.owed, 1)

    def test_a_stop_with_nothing_mapped_since_is_left_alone(self):
        sleeper = self.stopped_process()
        mapped = {mapping.path for mapping in process.mappings(sleeper.pid)}
        libraries = self.libraries(sleeper.pid, mapped)
        self.assertNotIn(True, self.looks(libraries, loaded_libraries.STOP_UNHEARD_AFTER + 0.3))
        self.assertEqual(libraries.owed, 0)

    def test_a_running_process_is_left_alone(self):
        sleeper = subprocess.Popen(["sleep", "60"])
        self.addCleanup(sleeper.wait)
        self.addCleanup(sleeper.kill)
        libraries = self.libraries(sleeper.pid, ())
        self.assertNotIn(True, self.looks(libraries, loaded_libraries.STOP_UNHEARD_AFTER + 0.3))


if __name__ == "__main__":
    usdt_testing.main()
