"""The CMake floor: no CMake feature newer than the minimum the project states (3.16).

Every `cmake_minimum_required` in the project says VERSION 3.16, and no CMake file of the
project (CMakeLists.txt, *.cmake, *.cmake.in, and CMake projects written by Python tests as
string literals) nor any command line that runs cmake or ctest (shell and Python scripts,
.ci/, Markdown documents) uses a construct of CONSTRUCTS, each listed with the release that
added it and where that is documented. Two rules are computed rather than listed: a
`cmake_policy(SET CMP<n> ...)` newer than the floor must follow its `if(POLICY CMP<n>)` guard,
and, where the running CMake has its documentation installed (Debian's cmake-data does), a
command or a CMAKE_* variable whose own page says "New in version" above the floor is refused
too. The same documentation checks the table: each entry that names a page must find its
keyword next to a `versionadded` (or `versionchanged`) of its version there, or in the release
notes of its version.

What this cannot catch: keywords, properties and generator expressions that are not in the
table; behaviour that changed under a policy (3.16 runs the project with every policy up to
CMP0097 and the OLD behaviour of later ones); version-dependent behaviour guarded at run time
(DEPFILE under Makefile generators needs 3.20: the rule only checks that the file comparing
CMAKE_VERSION is the one using it); CMake code assembled at run time. Only configuring with
CMake 3.16 itself proves the floor.

Usage (CTest passes these): test_cmake_floor.py --source-dir REPO [--cmake CMAKE] [unittest options]
"""

import argparse
import os
import re
import subprocess
import tempfile
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

import usdt_testing

FLOOR = (3, 16)
OPTIONS = argparse.Namespace()

DOCS = "https://cmake.org/cmake/help/latest/"


@dataclass(frozen=True)
class Construct:
    name: str            # as a finding names it
    version: str         # the CMake release that added it
    pattern: str         # regex: over one command invocation `name(arguments)` (CMake rules)
                         # or one line that runs cmake or ctest (command-line rules)
    doc: str             # where the version is documented
    local: Optional[Tuple[str, str]] = None  # (page under CMAKE_ROOT, text next to its versionadded)


# Construct.local pages a later CMake moved: CMake 4 keeps the find commands' shared text in
# Help/command/include/.
MOVED_PAGES = {"Help/command/FIND_XXX.txt": "Help/command/include/FIND_XXX.rst"}

# Over a CMake command invocation, its name lower-cased, comments and bracket arguments blanked.
CMAKE_CONSTRUCTS = (
    Construct("find_<kind>(... NO_CACHE)", "3.21", r"^find_(program|library|file|path)\(.*\bNO_CACHE\b",
              DOCS + "command/find_program.html", ("Help/command/FIND_XXX.txt", "NO_CACHE")),
    Construct("find_<kind>(... REQUIRED)", "3.18", r"^find_(program|library|file|path)\(.*\bREQUIRED\b",
              DOCS + "command/find_program.html", ("Help/command/FIND_XXX.txt", "REQUIRED")),
    Construct("find_package(... GLOBAL)", "3.24", r"^find_package\(.*\bGLOBAL\b",
              DOCS + "command/find_package.html", ("Help/command/find_package.rst", "GLOBAL")),
    Construct("file(CHMOD)", "3.19", r"^file\(\s*CHMOD(_RECURSE)?\b",
              DOCS + "command/file.html#chmod", ("Help/command/file.rst", "CHMOD")),
    Construct("file(REAL_PATH)", "3.19", r"^file\(\s*REAL_PATH\b",
              DOCS + "command/file.html#real-path", ("Help/command/file.rst", "REAL_PATH")),
    Construct("file(CONFIGURE)", "3.18", r"^file\(\s*CONFIGURE\b",
              DOCS + "command/file.html#configure", ("Help/command/file.rst", "CONFIGURE")),
    Construct("file(ARCHIVE_CREATE|ARCHIVE_EXTRACT)", "3.18", r"^file\(\s*ARCHIVE_(CREATE|EXTRACT)\b",
              DOCS + "command/file.html#archive-create", ("Help/command/file.rst", "ARCHIVE_CREATE")),
    Construct("file(COPY_FILE)", "3.21", r"^file\(\s*COPY_FILE\b",
              DOCS + "command/file.html#copy-file", ("Help/command/file.rst", "COPY_FILE")),
    Construct("file(GENERATE ... FILE_PERMISSIONS|USE_SOURCE_PERMISSIONS|NO_SOURCE_PERMISSIONS|NEWLINE_STYLE)",
              "3.20", r"^file\(\s*GENERATE\b.*\b(FILE_PERMISSIONS|USE_SOURCE_PERMISSIONS|NO_SOURCE_PERMISSIONS|NEWLINE_STYLE)\b",
              DOCS + "command/file.html#generate", ("Help/command/file.rst", "USE_SOURCE_PERMISSIONS")),
    Construct("configure_file(... FILE_PERMISSIONS|USE_SOURCE_PERMISSIONS)", "3.20",
              r"^configure_file\(.*\b(FILE_PERMISSIONS|USE_SOURCE_PERMISSIONS)\b",
              DOCS + "command/configure_file.html", ("Help/command/configure_file.rst", "FILE_PERMISSIONS")),
    Construct("configure_file(... NO_SOURCE_PERMISSIONS)", "3.19", r"^configure_file\(.*\bNO_SOURCE_PERMISSIONS\b",
              DOCS + "command/configure_file.html", ("Help/command/configure_file.rst", "NO_SOURCE_PERMISSIONS")),
    Construct("cmake_path()", "3.20", r"^cmake_path\(", DOCS + "command/cmake_path.html",
              ("Help/command/cmake_path.rst", "cmake_path")),
    Construct("cmake_language()", "3.18", r"^cmake_language\(", DOCS + "command/cmake_language.html",
              ("Help/command/cmake_language.rst", "cmake_language")),
    Construct("block()", "3.25", r"^(end)?block\(", DOCS + "command/block.html", ("Help/command/block.rst", "block")),
    Construct("return(PROPAGATE)", "3.25", r"^return\(.*\bPROPAGATE\b", DOCS + "command/return.html",
              ("Help/command/return.rst", "PROPAGATE")),
    Construct("foreach(... IN ZIP_LISTS)", "3.17", r"^foreach\(.*\bIN\s+ZIP_LISTS\b", DOCS + "command/foreach.html",
              ("Help/command/foreach.rst", "ZIP_LISTS")),
    Construct("foreach() with several loop variables", "3.17", r"^foreach\(\s*[^\s()]+\s+(?!IN\b)[^\s()]+\s+IN\s+(LISTS|ITEMS)\b",
              DOCS + "command/foreach.html", ("Help/command/foreach.rst", "ZIP_LISTS")),
    Construct("string(JSON)", "3.19", r"^string\(\s*JSON\b", DOCS + "command/string.html#json",
              ("Help/command/string.rst", "JSON")),
    Construct("string(HEX)", "3.18", r"^string\(\s*HEX\b", DOCS + "command/string.html#hex",
              ("Help/command/string.rst", "HEX")),
    Construct("if(... PATH_EQUAL ...)", "3.24", r"^(else)?if\(.*\bPATH_EQUAL\b", DOCS + "command/if.html#path-equal",
              ("Help/command/if.rst", "PATH_EQUAL")),
    Construct("message(CHECK_START|CHECK_PASS|CHECK_FAIL)", "3.17", r"^message\(\s*CHECK_(START|PASS|FAIL)\b",
              DOCS + "command/message.html#reporting-checks", ("Help/command/message.rst", "Reporting checks")),
    Construct("execute_process(... COMMAND_ERROR_IS_FATAL)", "3.19", r"^execute_process\(.*\bCOMMAND_ERROR_IS_FATAL\b",
              DOCS + "command/execute_process.html", ("Help/command/execute_process.rst", "COMMAND_ERROR_IS_FATAL")),
    Construct("execute_process(... ECHO_OUTPUT_VARIABLE|ECHO_ERROR_VARIABLE)", "3.18",
              r"^execute_process\(.*\bECHO_(OUTPUT|ERROR)_VARIABLE\b",
              DOCS + "command/execute_process.html", ("Help/command/execute_process.rst", "ECHO_OUTPUT_VARIABLE")),
    Construct("install(... RUNTIME_DEPENDENCIES|RUNTIME_DEPENDENCY_SET)", "3.21",
              r"^install\(.*\bRUNTIME_DEPENDENC(IES|Y_SET)\b",
              DOCS + "command/install.html#targets", ("Help/command/install.rst", "RUNTIME_DEPENDENCIES")),
    Construct("install(IMPORTED_RUNTIME_ARTIFACTS)", "3.21", r"^install\(\s*IMPORTED_RUNTIME_ARTIFACTS\b",
              DOCS + "command/install.html#imported-runtime-artifacts", ("Help/command/install.rst", "IMPORTED_RUNTIME_ARTIFACTS")),
    Construct("install(... FILE_SET) / target_sources(FILE_SET)", "3.23", r"^(install|target_sources)\(.*\bFILE_SET\b",
              DOCS + "command/target_sources.html#file-sets", ("Help/command/target_sources.rst", "FILE_SET")),
    Construct("try_compile(... NO_CACHE|SOURCE_FROM_*)", "3.25",
              r"^try_(compile|run)\(.*\b(NO_CACHE|SOURCE_FROM_(CONTENT|VAR|FILE))\b",
              DOCS + "command/try_compile.html", ("Help/command/try_compile.rst", "SOURCE_FROM_CONTENT")),
    Construct("try_compile(<result> SOURCES|PROJECT ...) without a binary directory", "3.25",
              r"^try_(compile|run)\(\s*[^\s()]+\s+(SOURCES|PROJECT|SOURCE_FROM_\w+)\b",
              DOCS + "command/try_compile.html", ("Help/command/try_compile.rst", "PROJECT")),
    Construct("add_library(<name> INTERFACE <source>...)", "3.19",
              r"^add_library\(\s*[^\s()]+\s+INTERFACE\s+(?!IMPORTED\b|GLOBAL\b)[^\s()]",
              DOCS + "command/add_library.html#interface-libraries", ("Help/command/add_library.rst", "INTERFACE")),
    Construct("test property ENVIRONMENT_MODIFICATION", "3.22", r"\bENVIRONMENT_MODIFICATION\b",
              DOCS + "prop_test/ENVIRONMENT_MODIFICATION.html", ("Help/prop_test/ENVIRONMENT_MODIFICATION.rst", "ENVIRONMENT_MODIFICATION")),
    Construct("property COMPILE_WARNING_AS_ERROR", "3.24", r"\bCOMPILE_WARNING_AS_ERROR\b",
              DOCS + "prop_tgt/COMPILE_WARNING_AS_ERROR.html", ("Help/prop_tgt/COMPILE_WARNING_AS_ERROR.rst", "COMPILE_WARNING_AS_ERROR")),
    Construct("C_STANDARD 17 or 23, c_std_17, c_std_23", "3.21", r"\bC_STANDARD\s+\"?(17|23)\b|\bc_std_(17|23)\b",
              DOCS + "prop_tgt/C_STANDARD.html", ("Help/prop_tgt/C_STANDARD.rst", "17")),
    Construct("CXX_STANDARD 23, cxx_std_23", "3.20", r"\bCXX_STANDARD\s+\"?23\b|\bcxx_std_23\b",
              DOCS + "prop_tgt/CXX_STANDARD.html", ("Help/prop_tgt/CXX_STANDARD.rst", "23")),
    Construct("CXX_STANDARD 26, cxx_std_26", "3.25", r"\bCXX_STANDARD\s+\"?26\b|\bcxx_std_26\b",
              DOCS + "prop_tgt/CXX_STANDARD.html", ("Help/prop_tgt/CXX_STANDARD.rst", "26")),
    Construct("CMAKE_CURRENT_FUNCTION* variables", "3.17", r"\bCMAKE_CURRENT_FUNCTION(_LIST_(DIR|FILE|LINE))?\b",
              DOCS + "variable/CMAKE_CURRENT_FUNCTION_LIST_DIR.html",
              ("Help/variable/CMAKE_CURRENT_FUNCTION_LIST_DIR.rst", "CMAKE_CURRENT_FUNCTION_LIST_DIR")),
    Construct("PROJECT_IS_TOP_LEVEL, <PROJECT-NAME>_IS_TOP_LEVEL", "3.21", r"\b\w*_IS_TOP_LEVEL\b",
              DOCS + "variable/PROJECT_IS_TOP_LEVEL.html", ("Help/variable/PROJECT_IS_TOP_LEVEL.rst", "PROJECT_IS_TOP_LEVEL")),
    Construct("CMAKE_<LANG>_LINKER_LAUNCHER, <LANG>_LINKER_LAUNCHER", "3.21", r"\b\w+_LINKER_LAUNCHER\b",
              DOCS + "prop_tgt/LANG_LINKER_LAUNCHER.html", ("Help/prop_tgt/LANG_LINKER_LAUNCHER.rst", "LINKER_LAUNCHER")),
    Construct("CMAKE_<LANG>_BYTE_ORDER", "3.20", r"\bCMAKE_\w+_BYTE_ORDER\b",
              DOCS + "variable/CMAKE_LANG_BYTE_ORDER.html", ("Help/variable/CMAKE_LANG_BYTE_ORDER.rst", "BYTE_ORDER")),
    Construct("CMAKE_REQUIRE_FIND_PACKAGE_<PackageName>", "3.22", r"\bCMAKE_REQUIRE_FIND_PACKAGE_\w+",
              DOCS + "variable/CMAKE_REQUIRE_FIND_PACKAGE_PackageName.html",
              ("Help/variable/CMAKE_REQUIRE_FIND_PACKAGE_PackageName.rst", "CMAKE_REQUIRE_FIND_PACKAGE")),
    Construct("$<PATH:...>, $<PATH_EQUAL:...>", "3.24", r"\$<PATH(_EQUAL)?:",
              DOCS + "manual/cmake-generator-expressions.7.html#genex:PATH",
              ("Help/manual/cmake-generator-expressions.7.rst", "$<PATH_EQUAL:")),
    Construct("$<LINK_LANGUAGE>, $<LINK_LANG_AND_ID>, $<DEVICE_LINK>, $<HOST_LINK>", "3.18",
              r"\$<(LINK_LANGUAGE|LINK_LANG_AND_ID|DEVICE_LINK|HOST_LINK)\b",
              DOCS + "manual/cmake-generator-expressions.7.html#genex:LINK_LANGUAGE",
              ("Help/manual/cmake-generator-expressions.7.rst", "$<LINK_LANGUAGE:languages>")),
    Construct("$<TARGET_RUNTIME_DLLS>", "3.21", r"\$<TARGET_RUNTIME_DLLS\b",
              DOCS + "manual/cmake-generator-expressions.7.html#genex:TARGET_RUNTIME_DLLS",
              ("Help/manual/cmake-generator-expressions.7.rst", "$<TARGET_RUNTIME_DLLS:tgt>")),
    Construct("$<LINK_LIBRARY>, $<LINK_GROUP>", "3.24", r"\$<LINK_(LIBRARY|GROUP):",
              DOCS + "manual/cmake-generator-expressions.7.html#genex:LINK_LIBRARY",
              ("Help/manual/cmake-generator-expressions.7.rst", "$<LINK_LIBRARY:feature,library-list>")),
    Construct("$<COMMAND_CONFIG>, $<OUTPUT_CONFIG>", "3.20", r"\$<(COMMAND|OUTPUT)_CONFIG:",
              DOCS + "manual/cmake-generator-expressions.7.html#genex:COMMAND_CONFIG",
              ("Help/manual/cmake-generator-expressions.7.rst", "$<COMMAND_CONFIG:...>")),
    Construct("$<CONFIG:cfg1,cfg2> with several configurations", "3.19", r"\$<CONFIG:[^>]*,",
              DOCS + "manual/cmake-generator-expressions.7.html#genex:CONFIG",
              ("Help/manual/cmake-generator-expressions.7.rst", "Multiple configurations")),
    Construct("module CheckLinkerFlag, check_linker_flag()", "3.18", r"^(include\(\s*CheckLinkerFlag\b|check_linker_flag\()",
              DOCS + "module/CheckLinkerFlag.html", ("Modules/CheckLinkerFlag.cmake", "CheckLinkerFlag")),
    Construct("modules CheckCompilerFlag, CheckSourceCompiles, CheckSourceRuns", "3.19",
              r"^(include\(\s*Check(CompilerFlag|SourceCompiles|SourceRuns)\b|check_(compiler_flag|source_compiles|source_runs)\()",
              DOCS + "module/CheckSourceCompiles.html", ("Modules/CheckSourceCompiles.cmake", "CheckSourceCompiles")),
    Construct("FetchContent_Declare(... OVERRIDE_FIND_PACKAGE|FIND_PACKAGE_ARGS)", "3.24",
              r"^fetchcontent_declare\(.*\b(OVERRIDE_FIND_PACKAGE|FIND_PACKAGE_ARGS)\b",
              DOCS + "module/FetchContent.html", ("Modules/FetchContent.cmake", "OVERRIDE_FIND_PACKAGE")),
    Construct("FetchContent_Declare(... SYSTEM)", "3.25", r"^fetchcontent_declare\(.*\bSYSTEM\b",
              DOCS + "module/FetchContent.html", ("Modules/FetchContent.cmake", "SYSTEM")),
)

# Over one line of a script or document that mentions cmake or ctest.
COMMAND_LINE_CONSTRUCTS = (
    Construct("ctest --test-dir", "3.20", r"--test-dir\b", DOCS + "release/3.20.html#ctest",
              ("Help/release/3.20.rst", "--test-dir")),
    Construct("cmake --toolchain", "3.21", r"--toolchain\b", DOCS + "manual/cmake.1.html#cmdoption-cmake-toolchain",
              ("Help/release/3.21.rst", "--toolchain")),
    Construct("cmake --install-prefix", "3.21", r"--install-prefix\b",
              DOCS + "manual/cmake.1.html#cmdoption-cmake-install-prefix", ("Help/release/3.21.rst", "--install-prefix")),
    Construct("cmake --fresh", "3.24", r"--fresh\b", DOCS + "manual/cmake.1.html#cmdoption-cmake-fresh",
              ("Help/manual/cmake.1.rst", "--fresh")),
    Construct("cmake/ctest --preset, --list-presets", "3.19", r"--(list-)?presets?\b",
              DOCS + "manual/cmake.1.html#cmdoption-cmake-preset", ("Help/release/3.19.rst", "CMakePresets.json")),
    Construct("cmake --debug-find", "3.17", r"--debug-find\b", DOCS + "manual/cmake.1.html#cmdoption-cmake-debug-find",
              ("Help/release/3.17.rst", "--debug-find")),
    Construct("cmake -E rm", "3.17", r"-E\W{0,4}rm\b", DOCS + "manual/cmake.1.html#cmdoption-cmake-E-arg-rm",
              ("Help/manual/cmake.1.rst", "rm [-rRf]")),
    Construct("cmake -E cat", "3.18", r"-E\W{0,4}cat\b", DOCS + "manual/cmake.1.html#cmdoption-cmake-E-arg-cat",
              ("Help/manual/cmake.1.rst", "cat [--]")),
    Construct("cmake -E create_hardlink", "3.19", r"-E\W{0,4}create_hardlink\b",
              DOCS + "manual/cmake.1.html#cmdoption-cmake-E-arg-create_hardlink", ("Help/manual/cmake.1.rst", "create_hardlink")),
    Construct("ctest --output-junit", "3.21", r"--output-junit\b", DOCS + "manual/ctest.1.html#cmdoption-ctest-output-junit",
              ("Help/manual/ctest.1.rst", "--output-junit")),
    Construct("ctest --no-tests=", "3.17", r"--no-tests\b", DOCS + "manual/ctest.1.html#cmdoption-ctest-no-tests",
              ("Help/release/3.17.rst", "--no-tests")),
    Construct("ctest --repeat", "3.17", r"--repeat(?![-\w])", DOCS + "manual/ctest.1.html#cmdoption-ctest-repeat",
              ("Help/release/3.17.rst", "--repeat <mode>")),
    Construct("ctest --stop-on-failure", "3.18", r"--stop-on-failure\b",
              DOCS + "manual/ctest.1.html#cmdoption-ctest-stop-on-failure", ("Help/release/3.18.rst", "--stop-on-failure")),
)

# The Makefile generators read a custom command's DEPFILE from 3.20 (the Ninja generators
# long before): a file using one must compare CMAKE_VERSION with 3.20.
DEPFILE_GUARD = re.compile(r"CMAKE_VERSION\s+VERSION_(GREATER_EQUAL|LESS)\s+\"?3\.20\b")

CMAKE_FILE_NAMES = re.compile(r"^(CMakeLists\.txt|.*\.cmake|.*\.cmake\.in)$")
SCRIPT_SUFFIXES = (".sh", ".py", ".md")
SKIPPED_DIRECTORIES = {".git", "__pycache__", "build"}
THIS_FILE = Path(__file__).resolve()


def version_tuple(text: str) -> Tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def code_only(text: str) -> str:
    """CMake `text` with comments and bracket arguments (`[=[...]=]`) blanked, newlines kept."""
    out: List[str] = []
    position, in_quote = 0, False
    bracket = re.compile(r"#?\[(=*)\[")
    while position < len(text):
        character = text[position]
        if in_quote:
            step = 2 if character == "\\" else 1
            in_quote = character != '"'
            out.append(text[position:position + step])
            position += step
            continue
        opening = bracket.match(text, position)
        if opening:
            closing = text.find("]" + opening.group(1) + "]", opening.end())
            end = len(text) if closing < 0 else closing + len(opening.group(1)) + 2
            out.append(blank(text[position:end]))
            position = end
        elif character == "#":
            end = text.find("\n", position)
            end = len(text) if end < 0 else end
            out.append(blank(text[position:end]))
            position = end
        else:
            in_quote = character == '"'
            out.append(character)
            position += 1
    return "".join(out)


def invocations(text: str) -> Iterator[Tuple[int, str]]:
    """(line, `name(arguments)`) of each command invocation in CMake `text`: the name lower-cased,
    comments and bracket arguments blanked, white space collapsed."""
    code = code_only(text)
    for start in re.finditer(r"(?m)^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(", code):
        depth, position, in_quote = 0, start.end() - 1, False
        while position < len(code):
            character = code[position]
            if in_quote:
                if character == "\\":
                    position += 1
                elif character == '"':
                    in_quote = False
            elif character == '"':
                in_quote = True
            elif character == "(":
                depth += 1
            elif character == ")":
                depth -= 1
                if depth == 0:
                    break
            position += 1
        arguments = " ".join(code[start.end():position].split())
        yield code.count("\n", 0, start.start(1)) + 1, f"{start.group(1).lower()}({arguments})"


def project_files(root: Path) -> Iterator[Path]:
    """The files of the source tree, without build trees (a CMakeCache.txt), .git and caches."""
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(name for name in subdirectories if name not in SKIPPED_DIRECTORIES
                                   and not (Path(directory) / name / "CMakeCache.txt").exists())
        for name in sorted(files):
            yield Path(directory) / name


def cmake_texts(root: Path) -> Iterator[Tuple[str, int, str]]:
    """(file name, first line, CMake text): the CMake files, and CMake projects that Python
    files hold as triple-quoted strings."""
    for path in project_files(root):
        name = str(path.relative_to(root))
        if CMAKE_FILE_NAMES.match(path.name):
            yield name, 1, path.read_text()
        elif path.suffix == ".py" and path != THIS_FILE:
            text = path.read_text()
            for literal in re.finditer(r'"""(.*?)"""', text, re.DOTALL):
                if "cmake_minimum_required(" in literal.group(1):
                    yield name, text.count("\n", 0, literal.start(1)) + 1, literal.group(1)


def command_lines(root: Path) -> Iterator[Tuple[str, int, str]]:
    """(file name, line number, line) of each script or document line that mentions cmake or ctest."""
    for path in project_files(root):
        relative = path.relative_to(root)
        if path == THIS_FILE or not (path.suffix in SCRIPT_SUFFIXES or relative.parts[0] == ".ci"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"cmake|ctest", line, re.IGNORECASE):
                yield str(relative), number, line


def cmake_root() -> Optional[Path]:
    """CMAKE_ROOT of the CMake under test, where its modules and (if installed) documentation are."""
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "root.cmake"
        script.write_text('message("${CMAKE_ROOT}")\n')
        result = subprocess.run([OPTIONS.cmake, "-P", script], capture_output=True, text=True)
    root = Path(result.stderr.strip())
    return root if result.returncode == 0 and root.is_dir() else None


def documented_additions(root: Path) -> List[Construct]:
    """Commands and CMAKE_* variables whose own page in the installed documentation is newer than the floor."""
    constructs = []
    for kind, pattern in (("command", r"^{}\("), ("variable", r"\b{}\b")):
        for page in sorted((root / "Help" / kind).glob("*.rst")):
            if kind == "variable" and not re.fullmatch(r"CMAKE_[A-Z0-9_]+", page.stem):
                continue  # names with placeholders (CMAKE_<LANG>_...) are the table's job
            added = re.search(r"^\.\. versionadded:: ([0-9.]+)", "\n".join(page.read_text().splitlines()[:8]), re.M)
            if added and version_tuple(added.group(1)) > FLOOR:
                name = page.stem.lower() if kind == "command" else page.stem
                constructs.append(Construct(f"{kind} {name}", added.group(1), pattern.format(re.escape(name)),
                                            str(page.relative_to(root))))
    return constructs


def findings(constructs, places) -> List[str]:
    return [f"{name}:{line}: {construct.name} needs CMake {construct.version} ({construct.doc}): {text.strip()[:120]}"
            for name, line, text in places for construct in constructs if re.search(construct.pattern, text)]


class CMakeFloorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = Path(OPTIONS.source_dir).resolve()
        cls.invocations = [(name, first + line - 1, invocation)
                           for name, first, text in cmake_texts(cls.root)
                           for line, invocation in invocations(text)]
        cls.cmake_root = cmake_root()
        cls.documentation = cls.cmake_root / "Help" if cls.cmake_root else None

    def test_every_project_states_the_floor(self):
        minimums = [(name, line, invocation) for name, line, invocation in self.invocations
                    if invocation.startswith("cmake_minimum_required(")]
        self.assertTrue(minimums)
        for name, line, invocation in minimums:
            self.assertRegex(invocation, r"^cmake_minimum_required\(VERSION 3\.16(\.\.\.[0-9.]+)?\)$", f"{name}:{line}")

    def test_no_cmake_construct_newer_than_the_floor(self):
        self.assertEqual(findings(CMAKE_CONSTRUCTS, self.invocations), [])

    def test_no_documented_command_or_variable_newer_than_the_floor(self):
        if not (self.documentation and self.documentation.is_dir()):
            self.skipTest("this CMake has no documentation installed (Debian: cmake-data has it)")
        constructs = documented_additions(self.cmake_root)
        self.assertIn("command cmake_path", [construct.name for construct in constructs])
        self.assertEqual(findings(constructs, self.invocations), [])

    def test_no_command_line_option_newer_than_the_floor(self):
        self.assertEqual(findings(COMMAND_LINE_CONSTRUCTS, command_lines(self.root)), [])

    def test_newer_policies_are_set_only_behind_their_guard(self):
        problems = []
        previous = {}
        for name, line, invocation in self.invocations:
            policy = re.match(r"^cmake_policy\(SET CMP0*(\d+) ", invocation)
            if policy and int(policy.group(1)) > 97:  # CMP0097 is the last policy CMake 3.16 knows
                guard = f"if(POLICY CMP{int(policy.group(1)):04d})"
                if previous.get(name) != guard:
                    problems.append(f"{name}:{line}: {invocation} without {guard} before it")
            previous[name] = invocation
        self.assertEqual(problems, [])

    def test_depfile_only_where_the_cmake_version_is_compared(self):
        problems = [f"{name}:{line}: DEPFILE in a file that does not compare CMAKE_VERSION with 3.20"
                    for name, line, invocation in self.invocations
                    if re.search(r"(?<![\w\"])DEPFILE\b", invocation)
                    and not DEPFILE_GUARD.search((self.root / name).read_text())]
        self.assertEqual(problems, [])

    def test_the_table_agrees_with_the_documentation(self):
        if not (self.documentation and self.documentation.is_dir()):
            self.skipTest("this CMake has no documentation installed (Debian: cmake-data has it)")
        for construct in CMAKE_CONSTRUCTS + COMMAND_LINE_CONSTRUCTS:
            if construct.local is None:
                continue
            page, needle = construct.local
            with self.subTest(construct.name):
                path = self.cmake_root / page
                if not path.exists() and page in MOVED_PAGES:
                    path = self.cmake_root / MOVED_PAGES[page]
                text = path.read_text()
                if page.startswith("Help/release/"):  # the release notes of the version that added it
                    self.assertEqual(Path(page).stem, construct.version)
                    self.assertIn(needle, text)
                    continue
                lines = text.splitlines()
                added = [number for number, line in enumerate(lines)
                         if re.search(rf"version(added|changed):: {re.escape(construct.version)}\b", line)]
                near = [number for number in added
                        if any(needle in line for line in lines[max(0, number - 12):number + 12])]
                self.assertTrue(near, f"{page}: no '{needle}' next to 'versionadded:: {construct.version}'")

    def test_the_rules_catch_what_they_name(self):
        examples = {
            "find_program(X NO_CACHE NAMES x)": "find_<kind>(... NO_CACHE)",
            "file(CHMOD a PERMISSIONS OWNER_READ)": "file(CHMOD)",
            "foreach(a b IN ZIP_LISTS x y)": "foreach(... IN ZIP_LISTS)",
            "foreach(a b IN LISTS x)": "foreach() with several loop variables",
            "configure_file(a b FILE_PERMISSIONS OWNER_READ)": "configure_file(... FILE_PERMISSIONS|USE_SOURCE_PERMISSIONS)",
            "add_library(x INTERFACE x.h)": "add_library(<name> INTERFACE <source>...)",
            "try_compile(result SOURCES a.c)": "try_compile(<result> SOURCES|PROJECT ...) without a binary directory",
            "message(STATUS ${CMAKE_CURRENT_FUNCTION_LIST_DIR})": "CMAKE_CURRENT_FUNCTION* variables",
        }
        for text, expected in examples.items():
            ((_, invocation),) = invocations(text)
            with self.subTest(text):
                self.assertIn(expected, [construct.name for construct in CMAKE_CONSTRUCTS
                                         if re.search(construct.pattern, invocation)])
        allowed = ["file(COPY a DESTINATION b FILE_PERMISSIONS OWNER_READ)", "foreach(a IN LISTS x)",
                   "add_library(x INTERFACE)", "add_library(x INTERFACE IMPORTED GLOBAL)",
                   "try_compile(result ${dir} SOURCES a.c)", "find_program(X NAMES x) # REQUIRED",
                   'file(WRITE x [=[ find_program(X REQUIRED) ]=])']
        for text in allowed:
            ((_, invocation),) = invocations(text)
            self.assertEqual(findings(CMAKE_CONSTRUCTS, [("example", 1, invocation)]), [], text)
        self.assertEqual(len(findings(COMMAND_LINE_CONSTRUCTS, [("x.sh", 1, 'ctest --test-dir "$build"'),
                                                                ("x.py", 1, '[cmake, "-E", "rm", path]')])), 2)


def add_options(parser):
    parser.add_argument("--source-dir", required=True, help="the usdt repository")
    parser.add_argument("--cmake", default="cmake")


if __name__ == "__main__":
    OPTIONS, _ = usdt_testing.parse_options(add_options)
    usdt_testing.main()
