"""The edits that builds written for systemtap's dtrace make to its `-h` header, applied to
usdt-dtrace's: each as its package's build files write it (docs/dtrace.md's table names the
Debian source package and version), run through /bin/sh with only the dtrace command changed
(`dtrace` on PATH is usdt-dtrace), on a provider file like the package's (its probes'
argument types as it declares them). One subTest per package, named after it:

- usdt's own code in the header is what it was before the edit: the edit changed only the
  probes' comments, which hold their declarations as systemtap's header does, and the names
  of the macros it renames;
- a C program and a C++ program firing every probe through the edited macros (and the C++
  API) compile with gcc and clang under -Wall -Wextra -Wpedantic -Werror and the package's
  own warning flags (those both compilers take), and link with the `-G` object the
  package's command makes from the program's objects;
- each program has a note for every probe, with its arguments' sizes and signedness, and a
  `.note.usdt` record of their types as the provider file declares them;
- gdb, breaking on every probe of the C program built by gcc, reads every argument.
"""

import functools
import shutil
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Tuple

import dropin_support as dropin
import elf_notes
import gdb_probes
import package_support as package
import usdt_testing
from usdtgen import pipeline
from usdtgen.model import Argument, Probe
from usdtgen.types import Kind

WARNINGS = ("-Wall", "-Wextra", "-Wpedantic", "-Werror")
CXX_STANDARD = "-std=c++11"
# The comment before the embedded usdt/usdt.h, and the header's first line after the embedded runtime.
RUNTIME_BEGIN, RUNTIME_AFTER = "/* usdt/usdt.h ", "#include <stddef.h>"


@dataclass(frozen=True)
class Edit:
    package: str                  # the Debian source package and version the commands come from
    provider_path: str            # the provider file, where the package keeps it
    provider: str                 # its text
    header_commands: str          # the -h command and the edit, as the package writes them
    header_path: str              # the header the package's code includes
    object_command: str = ""      # its -G command (OBJECTS: the program's objects), if it links one
    object_path: str = ""         # the object that command writes
    renamed: Tuple[str, str] = ("", "")   # the macro prefix the edit renames, and into what
    cflags: Tuple[str, ...] = ()  # its C compiler flags: standard and warnings
    files: Tuple[Tuple[str, str], ...] = ()   # (name, text) of files its provider file includes

    def macro(self, probe: Probe, suffix: str = "") -> str:
        """A probe's macro as the edited header names it."""
        old, new = self.renamed
        return probe.macro_name.replace(old, new, 1) + suffix if old else probe.macro_name + suffix


EDITS = (
    # Makefile.am, memcached_dtrace.h; configure.ac's CFLAGS for GCC.
    Edit("memcached 1.6.18-1", "memcached_dtrace.d", """\
provider memcached {
   probe conn__create(void *ptr);
   probe conn__dispatch(int connid, int64_t threadid);
   probe slabs__allocate(int size, int slabclass, int slabsize, void* ptr);
   probe assoc__find(const char *key, int keylen, int depth);
   probe process__command__start(int connid, const void *request, int size);
   probe command__get(int connid, const char *key, int keylen, int size, int64_t casid);
};
""", """\
$DTRACE -h -s memcached_dtrace.d
sed -e 's,void \\*,const void \\*,' memcached_dtrace.h | \\
sed -e 's,char \\*,const char \\*,g' | tr '\\t' ' ' > mmc_dtrace.tmp
mv mmc_dtrace.tmp memcached_dtrace.h
""", "memcached_dtrace.h",
         "$DTRACE $DTRACEFLAGS -G -o memcached_dtrace.o -s ./memcached_dtrace.d $OBJECTS", "memcached_dtrace.o",
         cflags=("-std=gnu99", "-Wall", "-Werror", "-pedantic", "-Wmissing-prototypes", "-Wmissing-declarations",
                 "-Wredundant-decls")),
    # src/backend/utils/Makefile (probes.h) and src/backend/Makefile (-G over every subsystem's objects).
    Edit("postgresql-15 15.18-0+deb12u1", "src/backend/utils/probes.d", """\
#define LocalTransactionId unsigned int
#define LWLockMode int
#define LOCKMODE int
#define BlockNumber unsigned int
#define Oid unsigned int
#define ForkNumber int
#define bool unsigned char

provider postgresql {
	probe transaction__start(LocalTransactionId);
	probe lwlock__acquire(const char *, LWLockMode);
	probe lock__wait__start(unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, LOCKMODE);
	probe query__start(const char *);
	probe query__plan__start();
	probe sort__start(int, bool, int, int, bool, int);
	probe smgr__md__read__done(ForkNumber, BlockNumber, Oid, Oid, Oid, int, int, int);
};
""", """\
cd src/backend/utils
$DTRACE -C -h -s probes.d -o probes.h.tmp
sed -e 's/POSTGRESQL_/TRACE_POSTGRESQL_/g' \\
    -e 's/( *char \\*/(const char */g' \\
    -e 's/, *char \\*/, const char */g' probes.h.tmp >probes.h
rm probes.h.tmp
""", "src/backend/utils/probes.h",
         "$DTRACE $DTRACEFLAGS -C -G -s src/backend/utils/probes.d -o probes.o $OBJECTS", "probes.o",
         renamed=("POSTGRESQL_", "TRACE_POSTGRESQL_"),
         cflags=("-std=gnu99", "-Wall", "-Wmissing-prototypes", "-Wpointer-arith", "-Wdeclaration-after-statement",
                 "-Werror=vla", "-Wendif-labels", "-Wmissing-format-attribute", "-Wformat-security",
                 "-fno-strict-aliasing", "-fwrapv")),
    # Makefile.pre.in; configure.ac's CFLAGS_NODIST.
    Edit("python3.11 3.11.2-6+deb12u8", "Include/pydtrace.d", """\
/* Python DTrace provider */

provider python {
    probe function__entry(const char *, const char *, int);
    probe line(const char *, const char *, int);
    probe gc__start(int);
    probe gc__done(long);
    probe import__find__load__done(const char *, int);
    probe audit(const char *, void *);
};
""", """\
mkdir -p Include
$DTRACE $DFLAGS -o Include/pydtrace_probes.h -h -s Include/pydtrace.d
: sed in-place edit with POSIX-only tools
sed 's/PYTHON_/PyDTrace_/' Include/pydtrace_probes.h > Include/pydtrace_probes.h.tmp
mv Include/pydtrace_probes.h.tmp Include/pydtrace_probes.h
""", "Include/pydtrace_probes.h",
         "$DTRACE $DFLAGS -o Python/pydtrace.o -G -s Include/pydtrace.d $OBJECTS", "Python/pydtrace.o",
         renamed=("PYTHON_", "PyDTrace_"),
         cflags=("-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers",
                 "-Wstrict-prototypes", "-Werror=implicit-function-declaration", "-fvisibility=hidden")),
    # template/Makefile.in (.d.h and probes.$(OBJEXT)); configure.ac's warnflags both compilers take.
    Edit("ruby3.1 3.1.2-7+deb12u1", "probes.d", """\
#include "vm_opts.h"

provider ruby {
  probe method__entry(const char *classname, const char *methodname, const char *filename, int lineno);
  probe require__entry(const char *rquiredfile, const char *filename, int lineno);
  probe array__create(long length, const char *filename, int lineno);
  probe parse__begin(const char *sourcefile, int lineno);
#if VM_COLLECT_USAGE_DETAILS
  probe insn(const char *insns_name);
#endif
  probe gc__mark__begin();
};
""", """\
$DTRACE -o probes.h.tmp -h -C $INCFLAGS -s probes.d
sed -e 's/RUBY_/RUBY_DTRACE_/g' -e 's/PROBES_H_TMP/RUBY_PROBES_H/' -e 's/(char \\*/(const char */g' \
-e 's/, char \\*/, const char */g' probes.h.tmp > probes.h
rm -f probes.h.tmp
""", "probes.h",
         "$DTRACE -G -C $INCFLAGS -s ./probes.d -o probes.o $OBJECTS", "probes.o",
         renamed=("RUBY_", "RUBY_DTRACE_"),
         cflags=("-std=gnu99", "-Wall", "-Werror=deprecated-declarations", "-Werror=implicit-function-declaration",
                 "-Werror=implicit-int", "-Werror=misleading-indentation",
                 "-Werror=pointer-arith", "-Werror=write-strings", "-Werror=old-style-definition",
                 "-Wmissing-noreturn", "-Wno-long-long", "-Wno-missing-field-initializers",
                 "-Wno-overlength-strings", "-Wno-unused-parameter", "-Wno-unused-value", "-Wunused-variable",
                 "-Wundef"),
         files=(("vm_opts.h", "#define VM_COLLECT_USAGE_DETAILS 0\n"),)),
    # build/php.m4 (PHP_INIT_DTRACE: the Makefile.objects rules), the non-libtool -G; `dtrace` by name.
    Edit("php8.2 8.2.32-1~deb12u1", "Zend/zend_dtrace.d", """\
provider php {
	probe exception__caught(char *classname);
	probe request__startup(char* request_file, char* request_uri, char* request_method);
	probe compile__file__entry(char * compile_file, char *compile_file_translated);
	probe error(char *errormsg, char *request_file, int lineno);
	probe function__entry(char* function_name, char* request_file, int lineno, char* classname, char* scope);
};
""", """\
CFLAGS="$CFLAGS_CLEAN" dtrace -h -C -s Zend/zend_dtrace.d -o Zend/zend_dtrace_gen.h.bak && \
sed -e 's,PHP_,DTRACE_,g' Zend/zend_dtrace_gen.h.bak > Zend/zend_dtrace_gen.h
""", "Zend/zend_dtrace_gen.h",
         'CFLAGS="$CFLAGS_CLEAN" dtrace -G -o Zend/zend_dtrace.d.o -s "$PWD/Zend/zend_dtrace.d" $OBJECTS 2> /dev/null '
         '&& test -f Zend/zend_dtrace.d.o', "Zend/zend_dtrace.d.o",
         renamed=("PHP_", "DTRACE_"),
         cflags=("-std=gnu99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-sign-compare",
                 "-fvisibility=hidden")),
)


@dataclass(frozen=True)
class Edited:
    """One package's edit, run: its directory, the header before and after, the probes."""
    directory: Path
    unedited: str
    edited: str
    probes: Tuple[Probe, ...]
    namespaces: Dict[str, str]    # provider -> its C++ API's namespace


def value(argument: Argument, probe_index: int):
    """What the programs pass for an argument: gdb reads it back. None for a pointer."""
    if argument.type.kind == Kind.STRING:
        return f"p{probe_index}a{argument.index}"
    if argument.type.kind == Kind.POINTER:
        return None
    number = 10 * probe_index + argument.index + 1
    return -number if argument.type.signed else number


def c_argument(argument: Argument, probe_index: int, cxx_api: bool) -> str:
    """The expression a program passes: a string through a `const char *` (what builds that make
    `char *` const want to pass), a pointer to an object, an integer of its type."""
    if argument.type.kind == Kind.STRING:
        return f"text_{probe_index}_{argument.index}"
    if argument.type.kind == Kind.POINTER:
        return "&object"
    number = value(argument, probe_index)
    return f"static_cast<{argument.type.c_type}>({number})" if cxx_api else str(number)


def program(edit: Edit, edited: Edited, cxx: bool) -> str:
    """A program that fires every probe once through its macro (and the C++ API), then prints how
    many were enabled."""
    probes = edited.probes
    declarations = [f'    const char *text_{index}_{argument.index} = "{value(argument, index)}";'
                    for index, probe in enumerate(probes) for argument in probe.arguments
                    if argument.type.kind == Kind.STRING]
    statements = []
    for index, probe in enumerate(probes):
        arguments = ", ".join(c_argument(argument, index, False) for argument in probe.arguments)
        statements += [f"    enabled += {edit.macro(probe, '_ENABLED')}() ? 1 : 0;",
                       f"    {edit.macro(probe)}({arguments});"]
        if cxx:
            api_arguments = ", ".join(c_argument(argument, index, True) for argument in probe.arguments)
            statements.append(f"    {edited.namespaces[probe.provider]}::{probe.cxx_name}({api_arguments});")
    return "\n".join([
        "#include <stdio.h>",
        f'#include "{edit.header_path}"',
        "",
        *(["static int object;", ""] if any(argument.type.kind == Kind.POINTER
                                              for probe in probes for argument in probe.arguments) else []),
        "int main(void) {",
        *declarations,
        "    int enabled = 0;",
        *statements,
        '    printf("%d enabled\\n", enabled);',
        "    return 0;",
        "}",
        ""])


class HeaderEditsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prefix = dropin.install()
        cls.environment = dropin.build_environment([dropin.path_directory(cls.prefix)], DTRACE="dtrace",
                                                   DTRACEFLAGS="", DFLAGS="", INCFLAGS="-I.", CC="gcc")

    @classmethod
    @functools.lru_cache(maxsize=None)
    def edited(cls, edit: Edit) -> Edited:
        """Runs the package's dtrace -h and its edit in a directory of their own, and the -h
        command alone in another, for the header before the edit."""
        directory = package.SETUP.work_dir / edit.package.split()[0]
        unedited_directory = directory.with_name(directory.name + "-unedited")
        for where in (directory, unedited_directory):
            provider = where / edit.provider_path
            provider.parent.mkdir(parents=True)
            provider.write_text(edit.provider)
            for name, text in edit.files:
                (provider.parent / name).write_text(text)
        environment = dict(cls.environment, CFLAGS_CLEAN=" ".join(edit.cflags))
        package.run(["sh", "-e", "-c", edit.header_commands], environment=environment, cwd=directory)
        unedited = unedited_directory / "unedited.h"
        package.run(["dtrace", "-C", "-h", "-s", unedited_directory / edit.provider_path, "-I",
                     unedited_directory / Path(edit.provider_path).parent, "-o", unedited],
                    environment=environment, cwd=unedited_directory)
        model = pipeline.build_model(str(directory / edit.provider_path),
                                     cpp_options=["-I", str((directory / edit.provider_path).parent)])
        return Edited(directory, unedited.read_text(), (directory / edit.header_path).read_text(), model.probes,
                      {provider.name: provider.cxx_namespace for provider in model.providers})

    def build(self, edit: Edit, compiler: str) -> Path:
        """The program built by `compiler` (gcc, clang, g++, clang++), linked with the -G object
        the package's command made from its object."""
        edited = self.edited(edit)
        cxx = compiler.endswith("++")
        name = compiler.replace("+", "x")
        source = edited.directory / f"{name}.{'cpp' if cxx else 'c'}"
        source.write_text(program(edit, edited, cxx))
        flags = [CXX_STANDARD, *WARNINGS] if cxx else [*WARNINGS, *edit.cflags]
        package.run([compiler, "-O2", "-g", *flags, "-I.", "-c", source, "-o", f"{name}.o"], cwd=edited.directory)
        objects = [f"{name}.o"]
        if edit.object_command:
            environment = dict(self.environment, OBJECTS=f"{name}.o", CFLAGS=" ".join(edit.cflags),
                               CFLAGS_CLEAN=" ".join(edit.cflags))
            (edited.directory / edit.object_path).parent.mkdir(exist_ok=True)
            package.run(["sh", "-e", "-c", edit.object_command], environment=environment, cwd=edited.directory)
            objects.append(edit.object_path)
        executable = edited.directory / name
        package.run([compiler, "-o", executable, *objects], cwd=edited.directory)
        return executable

    def test_the_edit_leaves_usdts_code_alone(self):
        for edit in EDITS:
            with self.subTest(package=edit.package):
                edited = self.edited(edit)
                before, after = edited.unedited.splitlines(), edited.edited.splitlines()
                self.assertEqual(len(before), len(after))
                runtime = slice(before.index(next(line for line in before if line.startswith(RUNTIME_BEGIN))),
                                before.index(RUNTIME_AFTER))
                self.assertEqual(after[runtime], before[runtime])
                comments = {f"/* {probe.provider}:{probe.name}(" for probe in edited.probes}
                old, new = edit.renamed
                for line_before, line_after in zip(before, after):
                    if line_before != line_after and not any(line_before.startswith(c) for c in comments):
                        self.assertIn(line_after, (line_before.replace(old, new), line_before.replace(old, new, 1)))
                        self.assertIn("#define " + new, line_after)

    def test_every_probe_compiles_links_and_has_its_note(self):
        for edit in EDITS:
            for compiler in ("gcc", "clang", "g++", "clang++"):
                with self.subTest(package=edit.package, compiler=compiler):
                    if shutil.which(compiler) is None:
                        usdt_testing.require_tracer(self, compiler, needs_root=False)
                    executable = self.build(edit, compiler)
                    probes = self.edited(edit).probes
                    self.assertEqual(package.run([executable]).stdout, "0 enabled\n")
                    expected = {f"{probe.provider}:{probe.name}": [
                        f"{'-' if argument.type.signed else ''}{argument.type.note_size(8)}@"
                        for argument in probe.arguments] for probe in probes}
                    notes = elf_notes.notes(str(executable))
                    self.assertEqual({note.probe for note in notes}, set(expected))
                    for note in notes:
                        self.assertEqual([argument.partition("@")[0] + "@" for argument in note.arguments],
                                         expected[note.probe], note)
                    # What `.note.usdt` records is what the provider file declared, unedited.
                    declared = {f"{probe.provider}:{probe.name}": tuple(argument.type.declared
                                                                        for argument in probe.arguments)
                                for probe in probes}
                    for description in elf_notes.descriptions(str(executable)):
                        self.assertEqual(tuple(type_ for _, type_, _ in description.arguments),
                                         declared[description.probe], description)

    def test_gdb_reads_every_argument(self):
        usdt_testing.require_tracer(self, "gdb", needs_root=False)
        for edit in EDITS:
            with self.subTest(package=edit.package):
                executable = self.build(edit, "gcc")
                probes = self.edited(edit).probes
                strings = {f"{probe.provider}:{probe.name}": [argument.index for argument in probe.arguments
                                                               if argument.type.kind == Kind.STRING]
                           for probe in probes}
                traced = gdb_probes.run(str(executable), [], strings)
                self.assertTrue(traced.exited_normally, traced.output)
                self.assertIn(f"{len(probes)} enabled", traced.output)
                self.assertEqual([hit.probe for hit in traced.hits], list(strings), traced.output)
                for index, (probe, hit) in enumerate(zip(probes, traced.hits)):
                    expected = [value(argument, index) for argument in probe.arguments]
                    self.assertEqual(len(hit.values), len(expected), hit)
                    for read, wanted in zip(hit.values, expected):
                        if wanted is None:   # a pointer: any address but 0
                            self.assertNotEqual(read, 0, hit)
                        else:
                            self.assertEqual(read, wanted, hit)


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
