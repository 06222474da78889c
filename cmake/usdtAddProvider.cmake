#[=======================================================================[.rst:
usdt_add_provider
-----------------

Adds USDT probes, declared in DTrace provider files, to a target::

  usdt_add_provider(<target> <file.d>...
                    [PUBLIC]
                    [NO_SEMAPHORES]
                    [PREPROCESSOR_OPTIONS <option>...]
                    [TRACER_SCRIPTS <tracer>...]
                    [VERIFY])

For each ``<name>.d`` it generates, at build time, ``<name>.h``: the probes, as macros
named as systemtap's ``dtrace -h`` names them and as a typed C++ API, with their
semaphores. It compiles as C and as C++, whatever languages ``<target>`` and its directory
use; its directory is added to the target's include path, and so is, privately, the
directory of usdt's runtime headers, which it includes (a ``PUBLIC`` header carries them
instead). Nothing is linked, so installing and exporting ``<target>`` needs nothing of usdt. How it regenerates, which preprocessor, assembler
check and Python it runs: docs/cmake.md, "usdt_add_provider".

``<target>``
  An executable, a shared, static, module or object library that this project builds,
  created before the call, from any directory that enables C or C++ (the call
  need not be in the target's). Several ``.d`` files per target (in one call or several)
  and the same ``.d`` file in several targets both work: each target gets its own copy of
  the generated files in ``<target>.usdt/`` in the target's binary directory. Two ``.d``
  files of the same name in one target, INTERFACE, IMPORTED and ALIAS targets, unknown
  keywords and files not ending in ``.d`` are configure errors that say what to do. A
  probe declared in two ``.d`` files of one target (or two probes that would generate the
  same macro) stops the build at the target's check of all its ``.d`` files, at the later
  file's probe, naming the earlier one:
  ``b.d:3:11: error: probe 'app:tick' is declared in two provider files of the same target``,
  then ``a.d:2:11: note: ...``.

``PUBLIC``
  Targets that link ``<target>`` can include the generated headers too (for a library
  whose public headers fire probes; a probe inlined into another module gets that
  module's own semaphore). By default the include directory is PRIVATE. The generated
  headers' full paths are in the target's ``USDT_HEADERS`` property, for ``install(FILES)``
  beside the public header that includes them. To generate a header once for several
  targets, give its ``.d`` file to an object library with ``PUBLIC`` and link that library
  (``add_library(probes OBJECT)``, ``usdt_add_provider(probes probes.d PUBLIC)``,
  ``target_link_libraries(app PRIVATE probes)``); it needs no source of its own.

``NO_SEMAPHORES``
  The probes get no semaphore: each site is only its ``nop``, and each ``_ENABLED()``
  is always true (nothing can tell whether a tracer is attached). By default every probe
  has one. In the ``.d`` file, ``#pragma usdt semaphore <provider>:<probe>`` and
  ``#pragma usdt no_semaphore <provider>:<probe>`` (``<provider>:*`` for all its probes)
  choose per probe and win over this keyword. To mix flavours per file, call
  ``usdt_add_provider`` once per flavour.

``PREPROCESSOR_OPTIONS``
  ``-I``, ``-D`` and ``-U`` options for the C preprocessor, joined or split (``-DN=1``,
  ``-D N=1``); anything else, a ``.d`` file given after the keyword included, is a
  configure error. The preprocessor runs over a ``.d`` file that uses ``#include``,
  ``#define`` or ``#if``, and over every file of the call when a ``-D`` or ``-U`` is given,
  as ``dtrace -C`` does. Relative ``-I`` paths are relative to the current source directory.
  A file without directives is read as systemtap's ``dtrace`` reads it without ``-C``: a
  ``#`` line such as ``# file: src/x.c`` is a comment (docs/provider-files.md, "Comments").

``TRACER_SCRIPTS``
  Also generate, next to each ``<name>.h``, scripts that print every probe of the file
  with its arguments by name, for each ``<tracer>`` given: ``bpftrace`` (``<name>.bt``),
  ``systemtap`` (``<name>.stp``), ``perf`` (``<name>.perf.sh``, which adds and deletes
  the perf events). They are built with ``<target>`` and listed, as full paths, in its
  ``USDT_TRACER_SCRIPTS`` property, for ``install(FILES)``. Each script takes the path of
  the program or library that has the probes: ``bpftrace <name>.bt -c '<program>'
  <program>``. Its top comment says how to run it.

``VERIFY``
  After ``<target>`` links, run ``usdt verify`` on its file with the call's ``.d`` files (and
  ``PREPROCESSOR_OPTIONS``), and fail the build when a declared probe has no site in it, one
  line per problem, at the ``.d`` file's line: ``probes.d:4:11: error: app:tick is declared
  here, and has no site in .../app``; also when an argument's size or signedness differs from
  its declaration, or a tracer could not read a probe of the file (docs/tracing.md,
  "usdt verify"). Off by default: a declared probe not called yet is normal while a program
  is written; turn it on for release builds and CI (``if(APP_RELEASE) ... VERIFY``). For an
  executable, shared or module library, in the directory that creates it (CMake adds steps to
  a target there only); the probes of a static or object library are verified in the file
  that links it, with ``usdt verify`` in a step of its own.

Probes are emitted on the targets docs/internals.md lists ("Targets"). Elsewhere, or where the
compiler defines ``USDT_DISABLE`` (``target_compile_definitions(<target> PRIVATE USDT_DISABLE)``),
they compile to nothing and every ``_ENABLED()`` check is false; the build never fails.

Example::

  find_package(usdt CONFIG REQUIRED)
  add_executable(app main.cpp)
  usdt_add_provider(app probes.d)   # main.cpp: #include "probes.h"

A release build that fails when a probe of ``probes.d`` lost its last call, or was dropped by
``--gc-sections`` or LTO::

  usdt_add_provider(app probes.d VERIFY)

The same with a bpftrace script, ``app.usdt/probes.bt``, installed with the program::

  usdt_add_provider(app probes.d TRACER_SCRIPTS bpftrace)
  include(GNUInstallDirs)
  install(TARGETS app)
  get_target_property(app_scripts app USDT_TRACER_SCRIPTS)
  install(FILES ${app_scripts} DESTINATION ${CMAKE_INSTALL_DATADIR}/app)

The generator needs Python 3.8 or later with Jinja2, looked for when this module is included;
``USDT_PYTHON_EXECUTABLE`` chooses the interpreter.
#]=======================================================================]

include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/usdtCheckAssembler.cmake")

# The function keeps the policies of its definition: DEPFILE paths relative to the binary directory.
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)
endif()

# Captured at include time (inside a function, CMAKE_CURRENT_LIST_DIR is the caller's), in
# global properties because the caller may sit in any directory scope (add_subdirectory).
# The source tree and the installed data directory share the layout cmake/, usdtgen/, templates/, runtime/.
get_filename_component(_usdt_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
# The files the generator reads (its modules, templates, the runtime headers generated headers
# embed), as usdt's configure listed them: its package configuration, or its CMakeLists.txt in-tree.
get_property(_usdt_generator_inputs GLOBAL PROPERTY USDT_GENERATOR_INPUTS)
if(NOT _usdt_generator_inputs)
  message(FATAL_ERROR "usdt: usdtAddProvider.cmake needs the list of the generator's files that "
                      "find_package(usdt) or add_subdirectory(usdt) gives it; use one of those.")
endif()
set(_usdt_generator_files "")
foreach(_usdt_input IN LISTS _usdt_generator_inputs)
  list(APPEND _usdt_generator_files "${_usdt_root}/${_usdt_input}")
endforeach()
set_property(GLOBAL PROPERTY USDT_GENERATOR_ROOT "${_usdt_root}")
set_property(GLOBAL PROPERTY USDT_GENERATOR_FILES "${_usdt_generator_files}")

# How the generator's interpreter runs: `-m usdtgen` with the generator's root as working
# directory, which `-m` puts first on sys.path, so that no directory of the caller's (its source
# or build directory, the .d file's) is searched for modules: an argparse.py or jinja2.py there
# is never imported. -E ignores PYTHONPATH and the other PYTHON* variables of the environment;
# -B writes no __pycache__ into the generator's directory (a source tree, an installed
# share/usdt). Not -I, which also drops the user's site-packages, where `pip install --user
# jinja2` puts Jinja2.
set_property(GLOBAL PROPERTY USDT_PYTHON_OPTIONS -B -E)

# The interpreter runs as the build runs it (USDT_PYTHON_OPTIONS, from the generator's root), so
# that the check finds the Jinja2 the generator will import, never a jinja2.py of the caller's.
# `result`: the interpreter's own path (its sys.executable), or "" when it cannot import jinja2.
function(_usdt_python_with_jinja2 python result)
  get_property(generator_root GLOBAL PROPERTY USDT_GENERATOR_ROOT)
  get_property(python_options GLOBAL PROPERTY USDT_PYTHON_OPTIONS)
  execute_process(COMMAND "${python}" ${python_options} -c "import sys, jinja2; print(sys.executable)"
                  WORKING_DIRECTORY "${generator_root}"
                  RESULT_VARIABLE failed OUTPUT_VARIABLE executable ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(failed)
    set(${result} "" PARENT_SCOPE)
  elseif(IS_ABSOLUTE "${executable}")
    set(${result} "${executable}" PARENT_SCOPE)
  else()
    set(${result} "${python}" PARENT_SCOPE)
  endif()
endfunction()

# Which Python runs usdt's code: one rule, for the generator's rules here and for usdt's own
# commands (bin/launcher.in), which CMakeLists.txt configures with this same choice; the test
# modules run under it too. It is applied twice, here at configure time and by the launcher at
# every start, because an installed prefix can outlive the interpreter it was configured with
# or move to another machine.
#  - An interpreter that imports Jinja2, what the generator imports beyond the standard library,
#    started by its own path (its sys.executable): a version manager's shim found as `python3`
#    (pyenv's) costs every start a second or so.
#  - USDT_PYTHON_EXECUTABLE when given, which must import it; else the first of the Python 3 on
#    PATH (find_package) and Debian's /usr/bin/python3, where apt installs python3-jinja2, that
#    imports it.
#  - At run time, when the configured one has gone: Debian's, else `python3` on PATH, which comes
#    last there because it would be started, shim and all, at every command rather than once. One
#    that cannot import Jinja2 runs the command again under Debian's.
# Finds USDT_PYTHON_EXECUTABLE, and sets the global property USDT_GENERATOR_PYTHON to the same
# interpreter by its own path.
function(_usdt_find_python)
  if(USDT_PYTHON_EXECUTABLE)
    _usdt_python_with_jinja2("${USDT_PYTHON_EXECUTABLE}" executable)
    if(NOT executable)
      message(FATAL_ERROR "usdt: USDT_PYTHON_EXECUTABLE (${USDT_PYTHON_EXECUTABLE}) cannot import jinja2. "
                          "Install Jinja2 for it, or point USDT_PYTHON_EXECUTABLE at a Python 3 that has it.")
    endif()
    set_property(GLOBAL PROPERTY USDT_GENERATOR_PYTHON "${executable}")
    return()
  endif()
  # The Python on PATH first, then the system's, where distribution packages install Jinja2.
  find_package(Python3 COMPONENTS Interpreter QUIET)
  set(system_python3 "")
  if(EXISTS /usr/bin/python3)
    set(system_python3 /usr/bin/python3)
  endif()
  foreach(candidate IN ITEMS "${Python3_EXECUTABLE}" "${system_python3}")
    if(candidate)
      _usdt_python_with_jinja2("${candidate}" executable)
      if(executable)
        set(USDT_PYTHON_EXECUTABLE "${candidate}" CACHE FILEPATH "Python 3 interpreter with Jinja2 that runs the usdt generator")
        set_property(GLOBAL PROPERTY USDT_GENERATOR_PYTHON "${executable}")
        return()
      endif()
    endif()
  endforeach()
  message(FATAL_ERROR
    "usdt: the probe generator needs Python 3 with Jinja2, and none was found "
    "(tried: '${Python3_EXECUTABLE}' '${system_python3}').\n"
    "Install it (Debian/Ubuntu: apt-get install python3 python3-jinja2; Fedora: dnf install python3-jinja2; "
    "elsewhere: python3 -m pip install jinja2), or set USDT_PYTHON_EXECUTABLE.")
endfunction()

_usdt_find_python()

# The command that preprocesses `target`'s .d files, as generator options (--cc=WORD each), in `result`.
function(_usdt_preprocessor_command target language result)
  get_target_property(launcher "${target}" ${language}_COMPILER_LAUNCHER)
  if(NOT launcher)
    set(launcher "")
  endif()
  # CC="gcc -m32" at the first configure leaves -m32 in CMAKE_<LANG>_COMPILER_ARG1.
  separate_arguments(compiler_arguments UNIX_COMMAND "${CMAKE_${language}_COMPILER_ARG1}")
  set(words ${launcher} "${CMAKE_${language}_COMPILER}" ${compiler_arguments})
  if(CMAKE_${language}_COMPILER_TARGET AND CMAKE_${language}_COMPILE_OPTIONS_TARGET)
    list(APPEND words "${CMAKE_${language}_COMPILE_OPTIONS_TARGET}${CMAKE_${language}_COMPILER_TARGET}")
  endif()
  if(CMAKE_SYSROOT_COMPILE)
    set(sysroot "${CMAKE_SYSROOT_COMPILE}")
  else()
    set(sysroot "${CMAKE_SYSROOT}")
  endif()
  if(sysroot AND CMAKE_${language}_COMPILE_OPTIONS_SYSROOT)
    list(APPEND words "${CMAKE_${language}_COMPILE_OPTIONS_SYSROOT}${sysroot}")
  endif()
  set(options "")
  foreach(word IN LISTS words)
    list(APPEND options "--cc=${word}")
  endforeach()
  set(${result} ${options} PARENT_SCOPE)
endfunction()

# Stops unless `target` is a target of this project that compiles code.
function(_usdt_check_target target)
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "usdt_add_provider: '${target}' is not a target; create it first (add_executable, add_library).")
  endif()
  # TYPE first: CMake before 3.19 reads few other properties of an INTERFACE library.
  get_target_property(type "${target}" TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    message(FATAL_ERROR "usdt_add_provider: '${target}' is an INTERFACE library, which compiles no code; "
                        "call usdt_add_provider on the executable or library whose code fires the probes "
                        "(with PUBLIC when it is a library whose headers fire them).")
  endif()
  get_target_property(aliased "${target}" ALIASED_TARGET)
  if(aliased)
    message(FATAL_ERROR "usdt_add_provider: '${target}' is an ALIAS of '${aliased}'; call usdt_add_provider(${aliased} ...).")
  endif()
  get_target_property(imported "${target}" IMPORTED)
  if(imported)
    message(FATAL_ERROR "usdt_add_provider: '${target}' is an IMPORTED target, built outside this project; "
                        "probes can only be added to a target this project compiles (add_executable, add_library).")
  endif()
  if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    message(FATAL_ERROR "usdt_add_provider: '${target}' is a ${type} target, which compiles no code; "
                        "call usdt_add_provider on an executable or a library.")
  endif()
endfunction()

# Stops unless VERIFY can add its step to `target`: after it links a file of its own, in the
# directory that creates it (policy CMP0040: CMake adds steps to a target only there).
function(_usdt_check_verifiable target)
  get_target_property(type "${target}" TYPE)
  if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
    message(FATAL_ERROR "usdt_add_provider: VERIFY checks the file '${target}' links, and '${target}' is a ${type}, "
                        "which links none; give VERIFY to a call on an executable or shared library, or run "
                        "`usdt verify` on the file that links '${target}' (docs/cmake.md, section VERIFY).")
  endif()
  get_target_property(target_source_dir "${target}" SOURCE_DIR)
  if(NOT target_source_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "usdt_add_provider: VERIFY adds a step to '${target}', which CMake allows only in the "
                        "directory that creates it (${target_source_dir}); make the call with VERIFY there.")
  endif()
endfunction()

# The PREPROCESSOR_OPTIONS checked, in `result`: -I, -D and -U, joined (-Idir) or split (-I dir),
# relative -I directories made absolute from the calling directory (the generator does not run there).
function(_usdt_preprocessor_options options result)
  set(checked "")
  set(expecting "")
  foreach(option IN LISTS options)
    if(expecting)
      set(value "${option}")
    elseif(option MATCHES "^-([IDU])(.*)$")
      set(expecting "${CMAKE_MATCH_1}")
      set(value "${CMAKE_MATCH_2}")
      if(value STREQUAL "")
        continue()
      endif()
    elseif(option MATCHES "\\.d$")
      message(FATAL_ERROR "usdt_add_provider: '${option}' after PREPROCESSOR_OPTIONS is a provider file, not an "
                          "option; list the .d files before the keywords.")
    else()
      message(FATAL_ERROR "usdt_add_provider: '${option}' after PREPROCESSOR_OPTIONS is not a -I, -D or -U option; "
                          "other compiler options do not reach the .d file's preprocessor (use -D NAME=VALUE, "
                          "-U NAME or -I DIRECTORY).")
    endif()
    if(expecting STREQUAL "I" AND NOT IS_ABSOLUTE "${value}" AND NOT value MATCHES "^\\$<")
      set(value "${CMAKE_CURRENT_SOURCE_DIR}/${value}")
    endif()
    list(APPEND checked "-${expecting}${value}")
    set(expecting "")
  endforeach()
  if(expecting)
    message(FATAL_ERROR "usdt_add_provider: '-${expecting}' at the end of PREPROCESSOR_OPTIONS has no value; "
                        "write -${expecting}VALUE or -${expecting} VALUE.")
  endif()
  set(${result} ${checked} PARENT_SCOPE)
endfunction()

# Makes building `target` run the rule, defined in the calling directory, whose OUTPUT is
# `stamp` and whose BYPRODUCTS are the other arguments, before the target's own sources compile.
function(_usdt_attach_rule target utility_target stamp)
  get_target_property(target_source_dir "${target}" SOURCE_DIR)
  if(target_source_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    # Sources, so that building the target runs the rule; none is compiled.
    target_sources("${target}" PRIVATE "${stamp}" ${ARGN})
  else()
    # A rule's outputs are sources only in the directory that defines the rule, and the rule
    # must be defined in the calling directory: a target there runs it.
    add_custom_target("${utility_target}" DEPENDS "${stamp}")
    add_dependencies("${target}" "${utility_target}")
  endif()
endfunction()

function(usdt_add_provider target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PUBLIC;NO_SEMAPHORES;VERIFY" "" "PREPROCESSOR_OPTIONS;TRACER_SCRIPTS")
  set(provider_files ${arg_UNPARSED_ARGUMENTS})
  _usdt_check_target("${target}")
  # Before looking for the provider files: one given after PREPROCESSOR_OPTIONS is among them.
  _usdt_preprocessor_options("${arg_PREPROCESSOR_OPTIONS}" preprocessor_options)
  if(NOT provider_files)
    message(FATAL_ERROR "usdt_add_provider: no provider file given for '${target}'; usage: usdt_add_provider(<target> <file.d>... [PUBLIC] [NO_SEMAPHORES] [PREPROCESSOR_OPTIONS <option>...] [TRACER_SCRIPTS <tracer>...] [VERIFY])")
  endif()

  if(arg_VERIFY)
    _usdt_check_verifiable("${target}")
  endif()

  # TRACER_SCRIPTS: each tracer's script ends in the matching extension; the generator's option is --<tracer>.
  set(tracers bpftrace systemtap perf)
  set(tracer_extensions .bt .stp .perf.sh)
  list(JOIN tracers ", " tracer_names)
  if("TRACER_SCRIPTS" IN_LIST arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "usdt_add_provider: TRACER_SCRIPTS names no tracer; expected one or more of ${tracer_names}.")
  endif()
  list(REMOVE_DUPLICATES arg_TRACER_SCRIPTS)
  foreach(tracer IN LISTS arg_TRACER_SCRIPTS)
    if(NOT tracer IN_LIST tracers)
      message(FATAL_ERROR "usdt_add_provider: '${tracer}' after TRACER_SCRIPTS is not a tracer; expected one or more of ${tracer_names}.")
    endif()
  endforeach()

  # The preprocessor of .d files with directives: the compiler the target's code gets, C where
  # the calling directory enabled C, else C++, as the build runs it (launcher, target, sysroot).
  if(CMAKE_C_COMPILER_LOADED)
    set(language C)
  elseif(CMAKE_CXX_COMPILER_LOADED)
    set(language CXX)
  else()
    message(FATAL_ERROR "usdt_add_provider: the directory calling it for '${target}' "
                        "(${CMAKE_CURRENT_SOURCE_DIR}) enables neither C nor CXX, which the probes' "
                        "preprocessor and assembler check need; call it from a directory that does (the one "
                        "creating '${target}', say), or enable_language(C) here.")
  endif()
  _usdt_check_assembler(${language} assembler_definitions)
  _usdt_preprocessor_command("${target}" ${language} preprocessor)

  # An object library whose only source is the generated header, shared by the targets linking
  # it (PUBLIC), has no language, which the Ninja generators refuse; it links nothing, so the
  # language it gets here is never used to link.
  get_target_property(type "${target}" TYPE)
  get_target_property(linker_language "${target}" LINKER_LANGUAGE)
  if(type STREQUAL "OBJECT_LIBRARY" AND NOT linker_language)
    set_target_properties("${target}" PROPERTIES LINKER_LANGUAGE ${language})
  endif()

  get_property(generator_root GLOBAL PROPERTY USDT_GENERATOR_ROOT)
  get_property(generator_files GLOBAL PROPERTY USDT_GENERATOR_FILES)
  get_property(python GLOBAL PROPERTY USDT_GENERATOR_PYTHON)
  get_property(python_options GLOBAL PROPERTY USDT_PYTHON_OPTIONS)
  # In the target's binary directory, wherever the call is: one place per target, whichever
  # directory each of several calls is made from.
  get_target_property(target_binary_dir "${target}" BINARY_DIR)
  set(output_directory "${target_binary_dir}/${target}.usdt")
  file(MAKE_DIRECTORY "${output_directory}")
  set(flavour_option "")
  if(arg_NO_SEMAPHORES)
    set(flavour_option --no-semaphores)
  endif()
  # A header that only the target's own sources read includes usdt's runtime headers, from a
  # private include directory that installing or exporting the target leaves behind; a PUBLIC
  # one, which other targets and installed headers include, carries them.
  set(runtime_option "")
  if(NOT arg_PUBLIC)
    set(runtime_option --include-runtime)
    target_include_directories("${target}" PRIVATE "${generator_root}/runtime/include")
  endif()
  # The .d files of this call and of earlier calls on the target, whose stems name their headers.
  get_target_property(earlier_files "${target}" _USDT_PROVIDER_FILES)
  if(NOT earlier_files)
    set(earlier_files "")
    # A probe declared in two .d files of the target would compile, in C, to one site with a
    # warning, in C++ to a redefinition. One rule per target checks them all, each with its
    # call's options, so that editing one .d file reruns the check, not the other files' rules.
    # Defined at the first call (whose preprocessor it runs), it reads the target's files
    # through $<TARGET_PROPERTY>, so later calls' files join it. Its stamp is not named
    # <stem>.stamp, as a .d file's rule's could be.
    set(check_stamp "${output_directory}/unique.check")
    add_custom_command(
      OUTPUT "${check_stamp}"
      COMMAND "${python}" ${python_options} -m usdtgen "$<TARGET_PROPERTY:${target},_USDT_CHECK_UNIQUE_OPTIONS>"
              --stamp "${check_stamp}" ${preprocessor}
      DEPENDS "$<TARGET_PROPERTY:${target},_USDT_PROVIDER_FILES>" ${generator_files}
      WORKING_DIRECTORY "${generator_root}"
      COMMENT "Checking that no USDT probe of ${target} is declared in two .d files"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    _usdt_attach_rule("${target}" "${target}_usdt_unique" "${check_stamp}")
  endif()
  foreach(provider_file IN LISTS provider_files)
    if(NOT provider_file MATCHES "\\.d$")
      message(FATAL_ERROR "usdt_add_provider: '${provider_file}' is neither a .d provider file nor a keyword (PUBLIC, NO_SEMAPHORES, PREPROCESSOR_OPTIONS, TRACER_SCRIPTS, VERIFY).")
    endif()
    get_filename_component(provider_file "${provider_file}" ABSOLUTE)
    get_filename_component(stem "${provider_file}" NAME_WLE)
    if(NOT EXISTS "${provider_file}")
      message(FATAL_ERROR "usdt_add_provider: provider file '${provider_file}' does not exist.")
    endif()
    foreach(earlier_file IN LISTS earlier_files)
      get_filename_component(earlier_stem "${earlier_file}" NAME_WLE)
      if(earlier_file STREQUAL provider_file)
        message(FATAL_ERROR "usdt_add_provider: '${provider_file}' is given twice for '${target}'; "
                            "name each .d file of a target once, in one call.")
      elseif(earlier_stem STREQUAL stem)
        message(FATAL_ERROR "usdt_add_provider: '${provider_file}' and '${earlier_file}' would both generate "
                            "'${stem}.h' for '${target}'; give each .d file of a target its own name, and each "
                            "file to one call only.")
      endif()
    endforeach()
    list(APPEND earlier_files "${provider_file}")
    set_property(TARGET "${target}" APPEND PROPERTY _USDT_PROVIDER_FILES "${provider_file}")
    # The target's check rule reads each file with its call's preprocessor options.
    set_property(TARGET "${target}" APPEND PROPERTY _USDT_CHECK_UNIQUE_OPTIONS "--check-unique=${provider_file}")
    foreach(option IN LISTS preprocessor_options)
      set_property(TARGET "${target}" APPEND PROPERTY _USDT_CHECK_UNIQUE_OPTIONS "--check-unique-option=${option}")
    endforeach()

    set(header "${output_directory}/${stem}.h")
    set(scripts "")
    set(script_options "")
    foreach(tracer IN LISTS arg_TRACER_SCRIPTS)
      list(FIND tracers "${tracer}" index)
      list(GET tracer_extensions ${index} extension)
      set(script "${output_directory}/${stem}${extension}")
      list(APPEND scripts "${script}")
      list(APPEND script_options "--${tracer}" "${script}")
    endforeach()
    file(RELATIVE_PATH shown_header "${CMAKE_BINARY_DIR}" "${header}")
    # The files the .d file #includes, as the preprocessor lists them. Makefile generators read a
    # DEPFILE from CMake 3.20; older ones would reject it, and track only the .d file. Ninja
    # takes one before that, but CMake 3.18 writes its rule so that it runs every build.
    set(depfile_option "")
    set(depfile_arguments "")
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.20)
      set(depfile_option --depfile "${output_directory}/${stem}.deps")
      set(depfile_arguments DEPFILE "${output_directory}/${stem}.deps")
    endif()
    # The generator leaves an unchanged header untouched, so that nothing recompiles; the rule's
    # output is a stamp it touches every run, else Make (which does not restat outputs, as Ninja
    # does) would run the rule again on every build.
    set(stamp "${output_directory}/${stem}.stamp")
    add_custom_command(
      OUTPUT "${stamp}"
      BYPRODUCTS "${header}" ${scripts}
      COMMAND "${python}" ${python_options} -m usdtgen "${provider_file}"
              --header "${header}" ${script_options} --stamp "${stamp}" ${depfile_option} ${preprocessor}
              ${flavour_option} ${runtime_option} ${preprocessor_options}
      DEPENDS "${provider_file}" ${generator_files}
      ${depfile_arguments}
      WORKING_DIRECTORY "${generator_root}"
      COMMENT "Generating USDT probes ${shown_header}"
      VERBATIM)
    # Named by the file's place among the target's .d files, which is unique.
    list(LENGTH earlier_files file_number)
    _usdt_attach_rule("${target}" "${target}_usdt_${file_number}" "${stamp}" "${header}" ${scripts})
    set_property(TARGET "${target}" APPEND PROPERTY USDT_HEADERS "${header}")
    if(scripts)
      set_property(TARGET "${target}" APPEND PROPERTY USDT_TRACER_SCRIPTS ${scripts})
    endif()
  endforeach()

  if(arg_VERIFY)
    set(absolute_files "")
    foreach(provider_file IN LISTS provider_files)
      get_filename_component(provider_file "${provider_file}" ABSOLUTE)
      list(APPEND absolute_files "${provider_file}")
    endforeach()
    # usdt's own command (usdttool/, beside the generator), run as the generator runs.
    add_custom_command(TARGET "${target}" POST_BUILD
      COMMAND "${python}" ${python_options} -m usdttool verify "$<TARGET_FILE:${target}>" ${absolute_files}
              ${preprocessor} ${preprocessor_options}
      WORKING_DIRECTORY "${generator_root}"
      COMMENT "Verifying the USDT probes of ${target}"
      VERBATIM)
  endif()

  if(arg_PUBLIC)
    target_include_directories("${target}" PUBLIC "$<BUILD_INTERFACE:${output_directory}>")
    set(scope PUBLIC)
  else()
    target_include_directories("${target}" PRIVATE "${output_directory}")
    set(scope PRIVATE)
  endif()
  if(assembler_definitions)
    target_compile_definitions("${target}" ${scope} ${assembler_definitions})
  endif()
endfunction()
