"""The documents (README.md, docs/*.md) quote only what exists, as docs/errors.md does
(test_error_catalogue.py), so that they cannot drift from the code unnoticed:

- paths: every path of the tree they name (in a code span, a link or a code block) exists;
  one of usdt's under an install prefix (`share/`, `libexec/`, `include/`, `bin/`,
  `<prefix>/...`) is one that tests/package/installed-files.txt lists; a template named alone (`*.j2`) is in
  templates/, a module named alone in a code block (contributing.md's layout) in the tree;
- links: every link into the tree reaches a file, and the heading its anchor names; every
  `docs/NAME.md` that usdt's code or tests name exists, with the heading quoted after it;
- code names: every `USDT_...` or `_usdt_...` name is one usdt's code spells; every
  `usdt::NAME` is a target of the package or a name of the runtime headers (the section on
  the Rust crate, whose names these are not, aside); every `check_...` is a check of usdtgen/;
- usdt_add_provider: every keyword a quoted call uses is one the module parses
  (cmake_parse_arguments), and the module's top comment documents each one it parses;
- options: every `--option` of a quoted `usdt` command line, and every option tracing.md
  quotes on its own, is in `usdt --help` or a command's (`usdt list --help`, `usdt verify --help`...); every
  option of a quoted `dtrace` or `usdt-dtrace` command line is in `usdt-dtrace --help`;
- lines: a quoted `FILE:LINE` of a file of the tree is a line it has, and none of a generated
  header is quoted (it moves with every change to the runtime header); a quoted `static
  assertion failed: MESSAGE` is a message of the runtime headers;
- the runtime's mechanics: a sentence that says how a probe works (doc_checks.CLAIMS: that its
  site tests the semaphore for a string argument; how `_ENABLED()` reads the semaphore) agrees
  with what the C preprocessor makes of a header usdt-dtrace generates (doc_checks.Mechanics).

Outputs that a test records (the cookbook's samples, checked by tests/cookbook) are read
for paths and names only. StaleTextTest runs each check on the stale text it was written
for, so each is known to catch what it is for.

Usage (CTest passes it): test_docs.py --usdt BUILD/bin/usdt --usdt-dtrace BUILD/bin/usdt-dtrace
"""

import unittest
from typing import List

import usdt_testing
from doc_checks import (Quote, all_quotes, code_files, code_name_problems, code_reference_problems, DOCUMENTS,
                        dtrace_option_problems, keyword_problems, line_problems, link_problems, Mechanics,
                        mechanics_problems, module_comment, option_problems, path_problems, quotes, REPOSITORY,
                        runtime_mechanics, usdt_dtrace_options, usdt_options)

OPTIONS = None


class DocumentsTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.documents = {str(path.relative_to(REPOSITORY)): path.read_text(encoding="utf-8") for path in DOCUMENTS}
        cls.quotes = all_quotes()

    def test_paths_exist(self):
        self.assertEqual(path_problems(self.quotes), [])

    def test_links_reach_a_file_and_heading(self):
        self.assertEqual(link_problems(self.quotes), [])

    def test_code_points_to_documents_and_headings_that_exist(self):
        self.assertEqual(code_reference_problems(code_files()), [])

    def test_code_names_exist(self):
        self.assertEqual(code_name_problems(self.quotes), [])

    def test_usdt_add_provider_keywords_are_the_modules(self):
        self.assertEqual(keyword_problems(self.documents, module_comment()), [])

    def test_usdt_options_exist(self):
        self.assertEqual(option_problems(self.quotes, usdt_options(OPTIONS.usdt)), [])

    def test_dtrace_options_exist(self):
        self.assertEqual(dtrace_option_problems(self.quotes, usdt_dtrace_options(OPTIONS.usdt_dtrace)), [])

    def test_quoted_lines_exist(self):
        self.assertEqual(line_problems(self.documents, self.quotes), [])

    def test_sentences_on_the_runtimes_mechanics_are_true(self):
        self.assertEqual(mechanics_problems(self.documents, runtime_mechanics(OPTIONS.usdt_dtrace)), [])


class StaleTextTest(unittest.TestCase):
    """Each check fails on the stale text it was written for."""

    def check(self, document: str, text: str) -> List[Quote]:
        return list(quotes(document, text))

    def test_a_template_that_is_gone(self):
        quotes_ = self.check("docs/contributing.md", "```\ntemplates/   provider.h.j2, provider.c.j2\n```\n")
        self.assertEqual(len(path_problems(quotes_)), 1)

    def test_a_path_that_is_gone(self):
        self.assertEqual(len(path_problems(self.check("docs/x.md", "See `usdtgen/provider_source.py`.\n"))), 1)
        self.assertEqual(len(path_problems(self.check("docs/x.md", "`share/usdt/lib/libusdt.so`\n"))), 1)

    def test_a_link_to_a_heading_that_is_gone(self):
        quotes_ = self.check("docs/cmake.md", "[keywords](#usdt_add_providertarget-filed) and [x](nothere.md)\n")
        self.assertEqual(len(link_problems(quotes_)), 2)

    def test_code_pointing_to_a_heading_that_is_gone(self):
        files = {"cmake/usdtAddProvider.cmake": 'The keywords: docs/cmake.md, "Keywords".\n',
                 "usdttool/listing.py": '# docs/listing.md ("usdt list")\n'}
        self.assertEqual(len(code_reference_problems(files)), 2)

    def test_a_macro_that_is_gone(self):
        text = "redefine a macro of `usdt/usdt.h` (`USDT_PROBE`, from provider `usdt` and probe `probe`)\n"
        self.assertEqual(len(code_name_problems(self.check("docs/errors.md", text))), 1)

    def test_a_target_that_is_not_the_packages(self):
        self.assertEqual(len(code_name_problems(self.check("docs/x.md", "link `usdt::usdt_runtime`\n"))), 1)

    def test_a_keyword_the_module_does_not_parse(self):
        text = "```cmake\nusdt_add_provider(app probes.d SEMAPHORES PREPROCESSOR_OPTIONS -DFOO=1)\n```\n"
        self.assertEqual(len(keyword_problems({"docs/x.md": text}, module_comment())), 1)

    def test_a_keyword_the_module_comment_leaves_out(self):
        comment = module_comment().replace("\n``TRACER_SCRIPTS``\n", "\n")
        self.assertEqual(len(keyword_problems({}, comment)), 1)

    def test_an_option_usdt_does_not_have(self):
        options = {"--json", "--latency"}
        quotes_ = self.check("docs/tracing.md", "`usdt trace ./app --jsonl -- ./app` and `--latency`, `--csv`\n")
        self.assertEqual(len(option_problems(quotes_, options)), 2)

    def test_a_dtrace_option_usdt_dtrace_does_not_take(self):
        quotes_ = self.check("docs/dtrace.md", "`usdt-dtrace -h -s probes.d -o probes.h --keep`, `dtrace -G -s p.d -Z`\n")
        self.assertEqual(len(dtrace_option_problems(quotes_, {"-h", "-G", "-s", "-o"})), 2)

    def test_claims_the_runtime_no_longer_makes_true(self):
        # README.md and docs/api.md as they were when the site had stopped testing the semaphore for
        # its strings (ABI 9) and the x86-64 check had become an asm goto.
        stale = {
            "README.md": "- **Honest is-enabled checks**: `PROBE_ENABLED()` reads the semaphore through a volatile\n"
                         "  access, so a loop notices a tracer that attaches later.\n",
            "docs/api.md": "| the site | a `nop`, and a check of the semaphore per string argument; the note records |\n\n"
                           "Untraced, a site costs its `nop`; with a semaphore, each string argument adds a check of\n"
                           "it.\n\nDisabled, a guard costs a load and a branch, whatever the arguments would cost.\n"}
        mechanics = Mechanics(enabled_check="asm goto", site_checks_semaphore=False)
        self.assertEqual([problem.split(":")[:2] for problem in mechanics_problems(stale, mechanics)],
                         [["README.md", "1"], ["docs/api.md", "1"], ["docs/api.md", "3"], ["docs/api.md", "6"]])
        # True of a runtime that does what they say.
        mechanics = Mechanics(enabled_check="volatile read", site_checks_semaphore=True)
        self.assertEqual([problem.split(":")[:2] for problem in mechanics_problems(stale, mechanics)],
                         [["docs/api.md", "6"]])

    def test_a_generated_headers_line(self):
        text = ("```\nmain.cpp:8:18:   required from here\nprobes.h:596:48: error: static assertion "
                "failed: usdt: an integer argument takes an integer or\nenum no wider than its declared type\n```\n")
        documents = {"docs/api.md": text}
        self.assertEqual(len(line_problems(documents, self.check("docs/api.md", text))), 2)


if __name__ == "__main__":
    def add_options(parser):
        parser.add_argument("--usdt", required=True, help="the usdt command of the build under test")
        parser.add_argument("--usdt-dtrace", required=True, help="its usdt-dtrace command")
    OPTIONS, _ = usdt_testing.parse_options(add_options)
    usdt_testing.main()
