// doctest's implementation and main(), compiled once for every runtime test program: it is
// most of each test file's compile time, more so under the sanitizers.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
