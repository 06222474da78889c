# _usdt_check_assembler(<C|CXX>): stops the configure step, with one sentence, when the assembler
# behind the consumer's <lang> compiler cannot assemble what generated headers emit; otherwise
# every translation unit that includes one would fail at build time with an assembler error.
#
# Generated headers (runtime/include/usdt/usdt.h) define each semaphore in a retained section
# (flag `R`, SHF_GNU_RETAIN) on every ELF target, probes or not, and where probes are emitted
# (the condition of USDT_HAVE_PROBES) put `.stapsdt.base` in a retained section too and the notes
# in sections linked to the probed code (flag `o`, SHF_LINK_ORDER, in the code's group, `?`).
# GNU as accepts `o` since binutils 2.35 and `R` since 2.36; Clang's integrated assembler accepts
# `R` since LLVM 13. The check compiles a file holding those directives, under the same
# conditions, with the compiler, its flags, target and sysroot, as try_compile does for any check.
#
# A passing result is cached per compiler (path, first arguments, target, sysroot and flags), so
# each configure checks once and a changed compiler or flags check again; a failure is not cached.
include_guard(GLOBAL)

function(_usdt_check_assembler language)
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
    return()
  endif()

  set(directory "${CMAKE_BINARY_DIR}/CMakeFiles/usdt")
  set(source "${directory}/assembler-check.${extension}")
  set(log "${directory}/assembler-check-${language}.log")
  # The section directives of usdt.h's USDT_SEMAPHORE_DEFINE, `.stapsdt.base` and _USDT_SITE,
  # flags and all (tests/python/test_cmake_errors.py checks that they stay the same).
  file(WRITE "${source}" [=[
/* Written by usdt's _usdt_check_assembler (cmake/usdtCheckAssembler.cmake). */
#if defined(__GNUC__) && defined(__ELF__) && !defined(USDT_CHECK_WITHOUT_DIRECTIVES)
__asm__(".pushsection .probes, \"awGR\", \"progbits\", usdt_assembler_check_semaphore, comdat\n"
        ".weak usdt_assembler_check_semaphore\n"
        ".hidden usdt_assembler_check_semaphore\n"
        "usdt_assembler_check_semaphore:\n"
        ".2byte 0\n"
        ".popsection\n");
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__)) \
    && !defined(__ILP32__) && !defined(USDT_DISABLE)
__asm__(".L_usdt_assembler_check: nop\n"
        ".pushsection .note.stapsdt, \"?o\", \"note\", .L_usdt_assembler_check\n"
        ".popsection\n"
        ".pushsection .note.usdt, \"?o\", \"note\", .L_usdt_assembler_check\n"
        ".popsection\n"
        ".pushsection .init_usdt_keep, \"?ao\", \"progbits\", .L_usdt_assembler_check\n"
        ".popsection\n"
        ".pushsection .stapsdt.base, \"axGR\", \"progbits\", .stapsdt.base, comdat\n"
        ".popsection\n");
#endif
#endif
typedef int usdt_assembler_check;
]=])
  # Compiled only: linking would need the consumer's libraries, and cross toolchains may not link.
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  try_compile(accepted "${directory}/assembler-check-${language}" SOURCES "${source}"
              OUTPUT_VARIABLE output)
  file(WRITE "${log}" "${output}")
  if(accepted)
    set(_USDT_ASSEMBLER_CHECKED_${language} "${checked}" CACHE INTERNAL
        "The ${language} compiler whose assembler accepts usdt's section flags")
    return()
  endif()

  # Blame the assembler only if the same file without the directives compiles.
  try_compile(compiles_without_probes "${directory}/assembler-check-${language}" SOURCES "${source}"
              COMPILE_DEFINITIONS -DUSDT_CHECK_WITHOUT_DIRECTIVES)
  if(NOT compiles_without_probes)
    message(WARNING "usdt_add_provider: could not check the assembler of the ${compiler_name} "
                    "${compiler}, which failed to compile even a file without assembler directives (output: ${log}).")
    return()
  endif()
  message(FATAL_ERROR
    "usdt_add_provider: the assembler of the ${compiler_name} ${compiler} rejects the section flags "
    "`o` (SHF_LINK_ORDER) and `R` (SHF_GNU_RETAIN) that USDT probes and their semaphores use; use "
    "GNU as from binutils 2.36 or later (install it, or point the compiler at one with -B<directory>) "
    "or Clang 13 or later with its integrated assembler (the assembler's output: ${log}).")
endfunction()
