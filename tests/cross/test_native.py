"""Real tracers on a target this machine runs itself: i386 programs on the x86-64 kernel. The
integration programs cross-compiled for i386 (project/: the build cross.i686 made, passed as
--project-build) run natively, through the sysroot's dynamic loader, while bpftrace 0.17
(root), attached to the program's file, reads the first six arguments of every probe of every
hit: the argument block's `-8@48(%eax)` read whole, strings through str(). `bpftrace -l` lists
every probe. On a kernel built without IA32 emulation, which cannot run i386 programs (the
loader gives "Exec format error"), the tracing test skips, and not as a failure under
USDT_REQUIRE_TRACERS=1: no package gives the kernel that.
"""

import concurrent.futures
import subprocess

import cross_project   # first: puts tests/integration and tests/package on sys.path
import bpftrace_attach
import bpftrace_lines
import expected
import package_support as package
from usdt_testing import main, require_kernel_runs, require_tracer


class NativeBpftraceTest(cross_project.CrossTestCase):
    project_build = cross_project.FinishedBuild()
    maxDiff = None

    def setUp(self):
        require_tracer(self, "bpftrace")
        super().setUp()

    def loader(self):
        return f"{self.target.sysroot}/lib/ld-linux.so.2"

    def command(self, module, *arguments):
        return [self.loader(), "--library-path", f"{self.target.sysroot}/lib", self.path(module), *arguments]

    def test_every_probe_listed(self):
        for module in cross_project.TYPES_PROGRAMS:
            with self.subTest(module=module):
                listing = subprocess.run(["bpftrace", "-l", f"usdt:{self.path(module)}:*"], capture_output=True,
                                         text=True, timeout=60).stdout
                listed = sorted(line.split(":", 2)[2] for line in listing.split())
                self.assertEqual(listed, sorted(self.expectation(module).expected_specs(self.target.pointer_size)))

    def trace(self, module, hits):
        specs = self.expectation(module).expected_specs(self.target.pointer_size)
        script = bpftrace_attach.BEGIN_READY + bpftrace_lines.program(self.path(module), specs, hits)
        return bpftrace_attach.trace(
            script, lambda: subprocess.run(self.command(module, *expected.TYPES_ARGUMENTS),
                                           capture_output=True, text=True, timeout=60), len(hits))

    def test_every_argument_bpftrace_reads(self):
        require_kernel_runs(self, [self.loader(), "--version"], "i386 programs")
        hits = expected.types_hits(self.target.pointer_size)
        # One bpftrace per program, all at once: most of a session is its exit, waiting while
        # the kernel unregisters each uprobe, and sessions waiting together wait less in all.
        # Each program has a file of its own, so no session sees another's hits.
        with concurrent.futures.ThreadPoolExecutor(len(cross_project.TYPES_PROGRAMS)) as pool:
            traces = {module: pool.submit(self.trace, module, hits) for module in cross_project.TYPES_PROGRAMS}
        for module, traced in traces.items():
            with self.subTest(module=module):
                output, program = traced.result()
                self.assertEqual((program.returncode, program.stderr), (0, ""))
                self.assertEqual(bpftrace_attach.hit_lines(output), bpftrace_lines.expected_lines(hits, program.stdout),
                                 output)

if __name__ == "__main__":
    package.parse_arguments(cross_project.add_project_build_option)
    main()
