"""The ENABLED() guard, with programs/guarded.c (-O2): it spins on MYAPP_GUARDED_ENABLED()
and fires myapp:guarded once the semaphore is nonzero. Untraced it must time out; under
gdb (which writes the semaphore itself) and under bpftrace (the kernel raises it: from the
start with -c, and with -p while the program is already spinning, which only a volatile
read notices) it must fire with the value it was given.
"""

import signal
import subprocess
import unittest

import built_programs
import expected
import gdb_probes
from usdt_testing import main, parse_options, require_tracer

PROGRAMS = {}
VALUE = str(expected.GUARDED_VALUE)


class GuardedProbe(unittest.TestCase):
    def test_untraced_guard_stays_false_until_timeout(self):
        completed = subprocess.run([PROGRAMS["guarded"], "1", VALUE], capture_output=True, text=True,
                                   timeout=30)
        self.assertEqual((completed.returncode, completed.stdout), (1, "spinning\nenabled=false\n"))

    def test_fires_under_gdb(self):
        require_tracer(self, "gdb", needs_root=False)
        run = gdb_probes.run(PROGRAMS["guarded"], ("10", VALUE), expected.string_indices(expected.GUARDED_HITS))
        self.assertEqual([(hit.probe, hit.values) for hit in run.hits],
                         [(hit.probe, hit.values) for hit in expected.GUARDED_HITS], run.output)
        self.assertIn("enabled=true", run.output)
        self.assertTrue(run.exited_normally, run.output)

    def test_fires_under_bpftrace_c(self):
        # With -c the kernel raises the semaphore as the program maps its file.
        require_tracer(self, "bpftrace")
        completed = subprocess.run(
            ["bpftrace", "-e", f'usdt:{PROGRAMS["guarded"]}:myapp:guarded {{ printf("HIT %lld\\n", arg0); }}',
             "-c", f'{PROGRAMS["guarded"]} 20 {VALUE}'],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(completed.returncode, 0, completed.stdout + completed.stderr)
        self.assertIn("enabled=true\n", completed.stdout)
        self.assertIn(f"HIT {VALUE}\n", completed.stdout)

    def test_fires_when_bpftrace_attaches_to_the_spinning_program(self):
        require_tracer(self, "bpftrace")
        program = subprocess.Popen([PROGRAMS["guarded"], "20", VALUE], stdout=subprocess.PIPE, text=True)
        tracer = None
        try:
            # The loop starts right after this line: a hoisted semaphore read would miss the tracer.
            self.assertEqual(program.stdout.readline(), "spinning\n")
            tracer = subprocess.Popen(
                ["bpftrace", "-p", str(program.pid), "-e",
                 f'usdt:{PROGRAMS["guarded"]}:myapp:guarded {{ printf("HIT %lld\\n", arg0); exit(); }}'],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            rest = program.communicate(timeout=30)[0]
            try:
                tracer_output = tracer.communicate(timeout=10)[0]
            except subprocess.TimeoutExpired:   # the probe never fired, so no exit()
                tracer.send_signal(signal.SIGINT)
                tracer_output = tracer.communicate(timeout=30)[0]
        finally:
            for process in (program, tracer):
                if process is not None and process.poll() is None:
                    process.send_signal(signal.SIGINT)
                    process.wait(timeout=30)
        self.assertEqual((program.returncode, rest), (0, "enabled=true\n"))
        self.assertIn(f"HIT {VALUE}\n", tracer_output)


if __name__ == "__main__":
    _, programs = parse_options(program_names=built_programs.NAMES)
    PROGRAMS.update(programs)
    main()
