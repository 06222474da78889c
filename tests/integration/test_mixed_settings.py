"""One program, translation units built with different settings: no ODR violation.

The C++ API's function bodies differ with USDT_DISABLE, USDT_X86_NOP5 and the semaphore
flavour of the header. Were they inline functions with external linkage, the linker would keep
one definition for the whole program: a call through `&mix::tick` taken in a USDT_DISABLE
unit could fire the probe, and one taken in a traced unit could do nothing. Each unit below
hands out a pointer to its own `mix::tick`, and to a function of its own returning
`MIX_TICK_ENABLED()`; each must behave as its unit was built, untraced and under gdb (which
sets semaphores), and every site keeps its note.
Built by GCC and Clang, at -O0 and -O2.
"""

import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import usdt_testing

PROVIDER = "provider mix { probe tick(int n); };\n"

# Unit NAME: its function pointers, the probe's argument is what the caller passes.
UNIT = """\
#include "mix.h"

using fire_function = void (*)(::usdt::integer_argument<int, 0>);
using enabled_function = bool (*)();

static bool enabled() {{ return MIX_TICK_ENABLED(); }}

fire_function {name}_fire() {{ return &mix::tick; }}
enabled_function {name}_enabled() {{ return &enabled; }}
"""

MAIN = """\
#include <cstdio>

#include "mix.h"

using fire_function = void (*)(::usdt::integer_argument<int, 0>);
using enabled_function = bool (*)();
#define UNIT(name) fire_function name##_fire(); enabled_function name##_enabled();
UNIT(traced) UNIT(disabled) UNIT(nop5) UNIT(no_semaphore)

int main() {
    const fire_function fire[] = {traced_fire(), disabled_fire(), nop5_fire(), no_semaphore_fire()};
    const enabled_function enabled[] = {traced_enabled(), disabled_enabled(), nop5_enabled(), no_semaphore_enabled()};
    for (int unit = 0; unit < 4; ++unit) {
        std::printf("%d", enabled[unit]() ? 1 : 0);
    }
    std::printf("\\n");
    for (int unit = 0; unit < 4; ++unit) {
        fire[unit](unit + 1);
    }
    return 0;
}
"""

# unit name -> (header directory, compile definitions)
UNITS = {
    "traced": ("semaphores", []),
    "disabled": ("semaphores", ["-DUSDT_DISABLE"]),
    "nop5": ("semaphores", ["-DUSDT_X86_NOP5"]),
    "no_semaphore": ("no-semaphores", []),
}

GDB_SCRIPT = """\
set pagination off
set confirm off
break -probe-stap mix:tick
commands
silent
printf "HIT %d\\n", $_probe_arg0
continue
end
run
"""


class MixedSettingsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="usdt-mixed-"))
        (cls.directory / "mix.d").write_text(PROVIDER, encoding="utf-8")
        for directory, options in (("semaphores", []), ("no-semaphores", ["--no-semaphores"])):
            subprocess.run([sys.executable, "-B", "-m", "usdtgen", "mix.d", "--header", f"{directory}/mix.h",
                            *options], cwd=cls.directory, check=True)
        for name in UNITS:
            (cls.directory / f"{name}.cpp").write_text(UNIT.format(name=name), encoding="utf-8")
        (cls.directory / "main.cpp").write_text(MAIN, encoding="utf-8")
        (cls.directory / "hits.gdb").write_text(GDB_SCRIPT, encoding="utf-8")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.directory)

    def build(self, compiler, optimisation):
        program = self.directory / f"mixed-{compiler}{optimisation}"
        objects = []
        for name, (header_directory, definitions) in UNITS.items():
            output = f"{program}.{name}.o"
            subprocess.run([compiler, "-std=c++11", optimisation, "-Wall", "-Wextra", "-Werror", *definitions,
                            f"-I{header_directory}", "-c", f"{name}.cpp", "-o", output], cwd=self.directory, check=True)
            objects.append(output)
        subprocess.run([compiler, "-std=c++11", optimisation, "-Isemaphores", "main.cpp", *objects, "-o", str(program)],
                       cwd=self.directory,
                       check=True)
        return program

    def test_each_unit_keeps_its_own_settings(self):
        if shutil.which("gdb") is None:
            usdt_testing.require_tracer(self, "gdb", needs_root=False)
        for compiler in ("g++", "clang++"):
            for optimisation in ("-O0", "-O2"):
                with self.subTest(compiler=compiler, optimisation=optimisation):
                    program = self.build(compiler, optimisation)
                    # Untraced: only the probe without a semaphore is enabled.
                    plain = subprocess.run([str(program)], capture_output=True, text=True, check=True)
                    self.assertEqual(plain.stdout, "0001\n")
                    # One note per unit with probes; the disabled unit has none.
                    notes = subprocess.run(["readelf", "-n", str(program)], capture_output=True, text=True,
                                           check=True).stdout
                    semaphores = re.findall(r"Semaphore: (0x[0-9a-f]+)", notes)
                    self.assertEqual(len(semaphores), 3, notes)
                    self.assertEqual(sorted(int(address, 16) == 0 for address in semaphores), [False, False, True])
                    # Under gdb, which sets the semaphores: every unit fires but the disabled one.
                    traced = subprocess.run(["gdb", "-nx", "-batch", "-x", str(self.directory / "hits.gdb"),
                                             "--args", str(program)], stdin=subprocess.DEVNULL,
                                            capture_output=True, text=True, check=False)
                    self.assertIn("1011\n", traced.stdout)
                    self.assertEqual(re.findall(r"^HIT (\d+)$", traced.stdout, re.MULTILINE), ["1", "3", "4"],
                                     traced.stdout)


if __name__ == "__main__":
    usdt_testing.main()
