"""Unit tests of usdtgen.pipeline: from a provider file to its checked model and outputs, the one
way every entry point takes (usdtgen, usdt-dtrace, usdt trace -d): reading, preprocessing when
the file needs it or is asked to, and what goes wrong on the way."""

import tempfile
import unittest
from pathlib import Path

import usdt_testing
from usdtgen import errors, pipeline, render
from usdtgen.errors import GeneratorError, PreprocessorFailed, SourceLocation


class PipelineTestCase(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="test_pipeline.")
        self.addCleanup(scratch.cleanup)
        self.directory = Path(scratch.name)

    def file(self, text, name="probes.d", data=None) -> str:
        path = self.directory / name
        if data is None:
            path.write_text(text, encoding="utf-8")
        else:
            path.write_bytes(data)
        return str(path)

    def assertFails(self, expected, *arguments, **options):
        with self.assertRaises(GeneratorError) as caught:
            pipeline.build_model(*arguments, **options)
        self.assertEqual(str(caught.exception), expected)


class GenerateTest(PipelineTestCase):
    def test_the_model_and_the_outputs_asked_for(self):
        path = self.file("provider app { probe tick(int n); };")
        generated = pipeline.generate(path, kinds=("header", "bpftrace"))
        self.assertEqual([probe.name for probe in generated.model.probes], ["tick"])
        self.assertEqual(set(generated.outputs), {"header", "bpftrace"})
        self.assertEqual(generated.outputs, render.render(generated.model, ("header", "bpftrace")))
        self.assertIn("app:tick n=%lld", generated.outputs["bpftrace"])

    def test_every_output_by_default_the_same_each_run(self):
        path = self.file("provider app { probe tick(); };")
        first = pipeline.generate(path).outputs
        self.assertEqual(set(first), set(render.TEMPLATES))
        self.assertEqual(first, pipeline.generate(path).outputs)

    def test_the_default_semaphore_flavour(self):
        path = self.file("provider app { probe a(); probe b(); };\n#pragma usdt semaphore app:b\n")

        def flavours(semaphores):
            return [probe.has_semaphore for probe in pipeline.generate(path, semaphores=semaphores, kinds=()).model.probes]
        self.assertEqual(flavours(True), [True, True])
        self.assertEqual(flavours(False), [False, True])

    def test_a_file_without_providers_when_they_are_not_required(self):
        path = self.file("BEGIN{}\n")
        generated = pipeline.generate(path, kinds=("header",), providers_required=False)
        self.assertEqual(generated.model.providers, ())
        self.assertIn("#define", generated.outputs["header"])
        with self.assertRaises(GeneratorError):
            pipeline.generate(path, kinds=("header",))


class ReadTest(PipelineTestCase):
    def test_a_missing_file(self):
        missing = str(self.directory / "missing.d")
        self.assertFails(f"{missing}:1:1: error: cannot read: No such file or directory", missing)

    def test_text_that_is_not_utf8_says_where(self):
        path = self.file(None, data=b"provider app {\n  probe \xff();\n};\n")
        self.assertFails(f"{path}:2:9: error: not UTF-8 text: byte 0xff", path)

    def test_a_byte_order_mark_is_not_part_of_the_text(self):
        path = self.file(None, data="\ufeffprovider app { probe tick(); };\n".encode("utf-8"))
        (probe,) = pipeline.build_model(path).probes
        self.assertEqual(str(probe.location), f"{path}:1:22")


class PreprocessTest(PipelineTestCase):
    def setUp(self):
        super().setUp()
        self.header = self.file("typedef unsigned long long request_id;\n", name="types.h")

    def test_a_file_with_directives_is_preprocessed_and_keeps_its_lines(self):
        path = self.file('#include "types.h"\n#define COUNT int\n\nprovider app {\n  probe x(request_id id, COUNT n);\n};\n')
        (probe,) = pipeline.build_model(path).probes
        self.assertEqual([argument.type.c_type for argument in probe.arguments], ["unsigned long long", "int"])
        self.assertEqual(str(probe.location), f"{path}:5:9")

    def test_options_reach_the_preprocessor_only_when_asked_for_a_file_without_directives(self):
        path = self.file("provider app {\n  probe x(request_t id);\n};\n")
        self.assertFails(f"{path}:2:11: error: argument type 'request_t': unknown type 'request_t'; use a C integer "
                         "type, a <stdint.h> type, bool, string, or a pointer, or '#define request_t <type>' before "
                         "the provider", path, cpp_options=["-Drequest_t=uint64_t"])
        (probe,) = pipeline.build_model(path, cpp_options=["-Drequest_t=uint64_t"], preprocessing=pipeline.Preprocessing.ALWAYS).probes
        self.assertEqual(probe.arguments[0].type.c_type, "uint64_t")

    def test_the_preprocessors_diagnostics_say_where(self):
        path = self.file('provider app { probe x(); };\n#include "missing.h"\n')
        with self.assertRaises(PreprocessorFailed) as caught:
            pipeline.build_model(path)
        self.assertRegex(caught.exception.diagnostics, rf"^{path}:2:\d+: (?:fatal )?error: ")
        self.assertIsInstance(caught.exception, errors.FAILURES)

    def test_hash_comments_as_systemtaps_dtrace_reads_them(self):
        # libvirt's provider file: `# file:` and `# prefix:` lines inside the provider block.
        text = ("provider libvirt {\n\t# file: src/util/virobject.c\n\t# prefix: object\n"
                "\tprobe object_new(void *obj); # note\n\tprobe object_unref(int $);\n};\n")
        path = self.file(text)
        # Read as it is (no directive) or never preprocessed: the lines after the comments stay right.
        self.assertFails(f"{path}:5:25: error: unexpected character '$'", path)
        self.assertFails(f"{path}:5:25: error: unexpected character '$'", path,
                         preprocessing=pipeline.Preprocessing.NEVER)
        path = self.file(text.replace("int $", "int refs"))
        (first, second) = pipeline.build_model(path, compiler=["/nonexistent/cc"]).probes
        self.assertEqual((first.name, str(first.location), second.name), ("object_new", f"{path}:4:8", "object_unref"))

    def test_never_preprocessed_directives_are_comments(self):
        path = self.file('#include "missing.h"\nprovider app {\n#if 0\n  probe x();\n#endif\n  probe y(int n);\n};\n')
        provider_file = pipeline.build_model(path, compiler=["/nonexistent/cc"],
                                             preprocessing=pipeline.Preprocessing.NEVER)
        self.assertEqual([(probe.name, probe.location.line) for probe in provider_file.probes], [("x", 4), ("y", 6)])

    def test_a_probe_of_another_file_of_the_target(self):
        path = self.file("provider app {\n  probe y();\n  probe x(COUNT n);\n};\n")
        other = self.file("provider app { probe x(COUNT n); };\n", "other.d")
        options = ["-DCOUNT=int"]
        # The other file with its own options, the file itself among the others.
        with self.assertRaises(GeneratorError) as caught:
            pipeline.generate(path, cpp_options=options, preprocessing=pipeline.Preprocessing.ALWAYS,
                              other_files=[pipeline.OtherFile(path, options), pipeline.OtherFile(other, options)])
        self.assertEqual((str(caught.exception), caught.exception.notes), (
            f"{path}:3:9: error: probe 'app:x' is declared in two provider files of the same target; declare it "
            "in one of them", ((SourceLocation(other, 1, 22), "probe 'app:x' is also declared here"),)))
        # Without its options the other file fails, which its own build reports, not this one.
        generated = pipeline.generate(path, cpp_options=options, preprocessing=pipeline.Preprocessing.ALWAYS,
                                      other_files=[pipeline.OtherFile(other)])
        self.assertEqual([probe.name for probe in generated.model.probes], ["y", "x"])

    def test_a_compiler_that_cannot_run(self):
        path = self.file("#define T int\nprovider app { probe x(T); };\n")
        self.assertFails(f"{path}:1:1: error: cannot run the C preprocessor '/nonexistent/cc': No such file or "
                         "directory", path, compiler=["/nonexistent/cc"])


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
