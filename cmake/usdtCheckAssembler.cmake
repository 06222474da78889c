# _usdt_check_assembler(<C|CXX> <result>): stops the configure step, with one sentence, when the
# assembler behind the consumer's <lang> compiler cannot assemble what generated headers emit;
# otherwise every translation unit that includes one would fail at build time with an assembler
# error. Sets <result> to the compile definitions the probes need from that toolchain: none, or
# USDT_UNLINKED_NOTES where the notes' section flag `o` (SHF_LINK_ORDER) draws a warning from
# the assembler or an error from the linker, as binutils 2.35 does: its GNU as warns about `o`
# on any `.note` section, and its GNU ld refuses an output section with both ordered and
# unordered input sections, as linked notes and those of sys/sdt.h (in libstdc++.a, say) are
# (runtime/include/usdt/usdt_site.h says what leaving it out changes).
#
# The check builds a semaphore and a probe site with the runtime header itself, under the same
# conditions as a generated header (its own USDT_HAVE_PROBES), so that every target with probes
# is checked: none passes configure and fails the build. It builds them beside a note as
# sys/sdt.h writes it, with the compiler, its flags, target and sysroot, as try_compile does for any
# check, and the assembler's warnings made errors. It links an executable, as the project's
# own checks do, unless CMAKE_TRY_COMPILE_TARGET_TYPE says the toolchain cannot (a cross
# toolchain without libraries); then it compiles only. GNU as accepts `o` since binutils 2.35
# (2.36 without the warning); Clang's integrated assembler since LLVM 11 at least (the oldest
# tested).
#
# A passing result is cached per compiler (path, first arguments, target, sysroot, flags and
# linker flags), so each configure checks once and a changed compiler or flags check again; a
# failure is not cached.
include_guard(GLOBAL)

function(_usdt_check_assembler language result)
  if(language STREQUAL "C")
    set(extension c)
    set(compiler_name "C compiler")
  elseif(language STREQUAL "CXX")
    set(extension cpp)
    set(compiler_name "C++ compiler")
  else()
    message(FATAL_ERROR "_usdt_check_assembler: language '${language}' is neither C nor CXX.")
  endif()
  # try_compile needs the language enabled (CMAKE_<LANG>_COMPILER alone may be a -D of the user's).
  get_property(enabled_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT language IN_LIST enabled_languages)
    message(FATAL_ERROR "usdt_add_provider: ${language} is not enabled; enable C or CXX in project() (or enable_language()) to compile probes.")
  endif()
  set(compiler "${CMAKE_${language}_COMPILER}")
  set(checked "${compiler}|${CMAKE_${language}_COMPILER_ARG1}|${CMAKE_${language}_COMPILER_TARGET}|${CMAKE_SYSROOT}|${CMAKE_${language}_FLAGS}|${CMAKE_EXE_LINKER_FLAGS}")
  if("$CACHE{_USDT_ASSEMBLER_CHECKED_${language}}" STREQUAL checked)
    set(${result} "$CACHE{_USDT_ASSEMBLER_DEFINITIONS_${language}}" PARENT_SCOPE)
    return()
  endif()

  set(directory "${CMAKE_BINARY_DIR}/CMakeFiles/usdt")
  set(source "${directory}/assembler-check.${extension}")
  set(log "${directory}/assembler-check-${language}.log")
  file(WRITE "${source}" [=[
/* Written by usdt's _usdt_check_assembler (cmake/usdtCheckAssembler.cmake): a semaphore and a
   probe site, as a generated header emits them, and a note as sys/sdt.h writes its own. */
#if !defined(USDT_CHECK_WITHOUT_DIRECTIVES)
#include "usdt/usdt_site.h"
_USDT_SEMAPHORE_DECLARE(usdt_assembler_check_semaphore);
_USDT_SEMAPHORE_DEFINE(usdt_assembler_check_semaphore);
#if defined(__GNUC__) && defined(__ELF__)
__asm__(".pushsection .note.stapsdt, \"?\", \"note\"\n"
        ".balign 4\n"
        ".4byte 8, 0, 0\n"
        ".asciz \"usdtchk\"\n"
        ".popsection\n");
#endif
#endif
int main(void) {
#if !defined(USDT_CHECK_WITHOUT_DIRECTIVES)
    _USDT_SITE("usdt", "assembler_check", "usdt_assembler_check_semaphore", "usdt_assembler_check_semaphore",
               "m"(usdt_assembler_check_semaphore),
               "", (), "\"assembler-check.d\"");
#endif
    return 0;
}
]=])
  get_property(generator_root GLOBAL PROPERTY USDT_GENERATOR_ROOT)
  set(include "-I${generator_root}/runtime/include")
  # -w: the project's warning flags (-Weverything -Werror) are for its own code; the check
  # is about the assembler and the linker, whose warnings it makes errors.
  foreach(definitions IN ITEMS "" USDT_UNLINKED_NOTES)
    set(options "${include}" -w -Wa,--fatal-warnings)
    foreach(definition IN LISTS definitions)
      list(APPEND options "-D${definition}")
    endforeach()
    try_compile(accepted "${directory}/assembler-check-${language}" SOURCES "${source}"
                COMPILE_DEFINITIONS ${options} OUTPUT_VARIABLE output)
    file(WRITE "${log}" "${output}")
    if(accepted)
      set(_USDT_ASSEMBLER_CHECKED_${language} "${checked}" CACHE INTERNAL
          "The ${language} compiler whose assembler takes usdt's probes")
      set(_USDT_ASSEMBLER_DEFINITIONS_${language} "${definitions}" CACHE INTERNAL
          "The compile definitions usdt's probes need from the ${language} compiler's assembler")
      set(${result} "${definitions}" PARENT_SCOPE)
      return()
    endif()
  endforeach()

  # Blame the assembler only if the same file without the directives compiles.
  try_compile(compiles_without_probes "${directory}/assembler-check-${language}" SOURCES "${source}"
              COMPILE_DEFINITIONS -w -DUSDT_CHECK_WITHOUT_DIRECTIVES)
  if(NOT compiles_without_probes)
    message(WARNING "usdt_add_provider: could not check the assembler of the ${compiler_name} "
                    "${compiler}, which failed to compile even a file without assembler directives (output: ${log}).")
    set(${result} "" PARENT_SCOPE)
    return()
  endif()
  message(FATAL_ERROR
    "usdt_add_provider: the assembler of the ${compiler_name} ${compiler} rejects the section flag "
    "`o` (SHF_LINK_ORDER) or another directive that USDT probes use; use GNU as from binutils 2.35 "
    "or later (install it, or point the compiler at one with -B<directory>) or Clang 11 or later "
    "with its integrated assembler (the assembler's output: ${log}).")
endfunction()
