"""No pointer a program passes to a string probe may crash it while traced: programs/bad_strings.c
(the macros) and bad_strings.cpp (the C++ API, and a macro) pass NULL, (const char *)1, an
unmapped and a PROT_NONE page, and an unterminated string that runs into that page, to a
probe with a semaphore and to one without, then a good string; traced by `bpftrace -c` (as
root), each must fire all 12 hits, print the good string, and exit 0 itself: a uprobe on libc's
exit() reports the status the program exits with (a crash never calls it).
"""

import re
import subprocess
import unittest

from usdt_testing import main, parse_options, require_tracer

PROGRAMS = {}
# bad_pointers.h: the good string is the last.
COUNT, GOOD = 6, "good"


def libc_path() -> str:
    """The C library this interpreter maps, which the programs load too."""
    with open("/proc/self/maps") as maps:
        return next(line.split()[-1] for line in maps if re.search(r"/libc[.-][^/]*so", line))


class BadStringsTest(unittest.TestCase):
    def setUp(self):
        require_tracer(self, "bpftrace")

    def test_traced_by_bpftrace_the_program_exits_0(self):
        for language, program in PROGRAMS.items():
            with self.subTest(language=language):
                script = "".join(f'usdt:{program}:bad:{probe} {{ printf("HIT {probe} %d %s\\n", arg0, str(arg1)); }}\n'
                                 for probe in ("text", "unguarded"))
                script += f'uprobe:{libc_path()}:exit /pid == cpid/ {{ printf("EXIT %d\\n", arg0); }}\n'
                completed = subprocess.run(["bpftrace", "-e", script, "-c", program], capture_output=True,
                                           text=True, timeout=60)
                output = completed.stdout + completed.stderr
                self.assertEqual(completed.returncode, 0, output)
                self.assertIn("EXIT 0\n", completed.stdout, output)
                hits = re.findall(r"^HIT (\w+) (\d+) (.*)$", completed.stdout, re.MULTILINE)
                self.assertEqual(sorted((probe, int(number)) for probe, number, _ in hits),
                                 sorted((probe, number) for probe in ("text", "unguarded")
                                        for number in range(1, COUNT + 1)), output)
                self.assertEqual({text for _, number, text in hits if int(number) == COUNT}, {GOOD}, output)


if __name__ == "__main__":
    _, programs = parse_options(program_names=("c", "cpp"))
    PROGRAMS.update(programs)
    main()
