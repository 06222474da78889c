# _usdt_check_assembler(<C|CXX> <result>): stops the configure step, with one sentence, when the
# assembler behind the consumer's <lang> compiler cannot assemble what generated headers emit;
# otherwise every translation unit that includes one would fail at build time with an assembler
# error. Sets <result> to the compile definitions the probes need from that assembler: none, or
# USDT_UNLINKED_NOTES where it warns about the notes' section flag `o` (SHF_LINK_ORDER), as GNU
# as 2.35 does for any `.note` section (runtime/include/usdt/usdt.h says what that changes).
#
# The check compiles a semaphore and a probe site with the runtime header itself, under the
# same conditions as a generated header (its own USDT_HAVE_PROBES), with the compiler, its
# flags, target and sysroot, as try_compile does for any check, and the assembler's warnings
# made errors. GNU as accepts `o` since binutils 2.35 (2.36 without the warning); Clang's
# integrated assembler since LLVM 11 at least (the oldest tested).
#
# A passing result is cached per compiler (path, first arguments, target, sysroot and flags), so
# each configure checks once and a changed compiler or flags check again; a failure is not cached.
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
  set(checked "${compiler}|${CMAKE_${language}_COMPILER_ARG1}|${CMAKE_${language}_COMPILER_TARGET}|${CMAKE_SYSROOT}|${CMAKE_${language}_FLAGS}")
  if("$CACHE{_USDT_ASSEMBLER_CHECKED_${language}}" STREQUAL checked)
    set(${result} "$CACHE{_USDT_ASSEMBLER_DEFINITIONS_${language}}" PARENT_SCOPE)
    return()
  endif()

  set(directory "${CMAKE_BINARY_DIR}/CMakeFiles/usdt")
  set(source "${directory}/assembler-check.${extension}")
  set(log "${directory}/assembler-check-${language}.log")
  file(WRITE "${source}" [=[
/* Written by usdt's _usdt_check_assembler (cmake/usdtCheckAssembler.cmake): a semaphore and a
   probe site, as a generated header emits them. */
#if !defined(USDT_CHECK_WITHOUT_DIRECTIVES)
#include "usdt/usdt.h"
USDT_SEMAPHORE_DECLARE(usdt_assembler_check_semaphore);
USDT_SEMAPHORE_DEFINE(usdt_assembler_check_semaphore);
void usdt_assembler_check(void);
void usdt_assembler_check(void) {
    USDT_SITE("usdt", "assembler_check", "usdt_assembler_check_semaphore", "m"(usdt_assembler_check_semaphore),
              "", (), ("assembler-check.d"));
}
#endif
typedef int usdt_assembler_check_unit;
]=])
  get_property(generator_root GLOBAL PROPERTY USDT_GENERATOR_ROOT)
  # Compiled only: linking would need the consumer's libraries, and cross toolchains may not link.
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  set(include "-I${generator_root}/runtime/include")
  foreach(definitions IN ITEMS "" USDT_UNLINKED_NOTES)
    set(options "${include}" -Wa,--fatal-warnings)
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
              COMPILE_DEFINITIONS -DUSDT_CHECK_WITHOUT_DIRECTIVES)
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
