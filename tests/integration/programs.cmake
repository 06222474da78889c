# The programs that tests/integration and tests/cross both build from programs/ and probes/,
# listed once. The including file sets `probes` and `programs` and defines
# usdt_test_program(target), which gives a target that file's warnings and standards; target
# names start with `prefix`.

# Every argument type, two providers in one .d and two .d files in one target, at one
# optimization level, position-independent unless NO_PIE follows. The types programs share
# one myapp.h and other.h, as a project shares a header between targets: types_probes, an
# object library whose only sources are the generated headers, linked by each program.
function(usdt_add_types_program target source optimization)
  if(NOT TARGET types_probes)
    add_library(types_probes OBJECT)
    usdt_add_provider(types_probes "${probes}/myapp.d" "${probes}/other.d" PUBLIC)
  endif()
  add_executable(${target} "${programs}/${source}")
  usdt_test_program(${target})
  target_compile_options(${target} PRIVATE ${optimization})
  if(ARGN STREQUAL "NO_PIE")
    target_compile_options(${target} PRIVATE -fno-pie)
    target_link_options(${target} PRIVATE -no-pie)
  endif()
  target_link_libraries(${target} PRIVATE types_probes)
endfunction()

function(usdt_add_shared_programs prefix)
  # A probe with a semaphore whose argument is formatted only while traced, and a probe
  # without one, from a NO_SEMAPHORES provider, through the C++ API.
  add_executable(${prefix}flavours "${programs}/flavours.cpp")
  usdt_test_program(${prefix}flavours)
  target_compile_options(${prefix}flavours PRIVATE -O2)
  usdt_add_provider(${prefix}flavours "${probes}/flavours.d" NO_SEMAPHORES)

  # A shared, a static and an object library with probes, and a program linking all three;
  # archive.d is in both the static library and the program.
  add_library(${prefix}solib SHARED "${programs}/solib.c")
  usdt_test_program(${prefix}solib)
  usdt_add_provider(${prefix}solib "${probes}/solib.d")

  add_library(${prefix}archive STATIC "${programs}/archive.c")
  usdt_test_program(${prefix}archive)
  usdt_add_provider(${prefix}archive "${probes}/archive.d")

  add_library(${prefix}objects OBJECT "${programs}/objects.c")
  usdt_test_program(${prefix}objects)
  usdt_add_provider(${prefix}objects "${probes}/objects.d")

  add_executable(${prefix}linked "${programs}/linked.c")
  usdt_test_program(${prefix}linked)
  usdt_add_provider(${prefix}linked "${probes}/archive.d")
  target_link_libraries(${prefix}linked PRIVATE ${prefix}solib ${prefix}archive ${prefix}objects)
endfunction()
