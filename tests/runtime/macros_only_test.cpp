/*
 * USDT_NO_CXX_API in a C++ translation unit: the macros work as in C, and the typed API,
 * whose templates cost compile time, is not declared at all.
 */
#include <doctest/doctest.h>

#define USDT_NO_CXX_API
#include "runtime_probes.h"
#include "self_elf.h"

#include <set>
#include <string>

// With the typed API these would clash with its probe functions and argument types of the same
// names (the macros' own type traits are in usdt::detail).
namespace myapp {
int request_start = 0;
}
namespace usdt {
int integer_argument = 0;
int string_argument = 0;
}

TEST_CASE("the macros fire and are enabled as in C") {
    MYAPP_REQUEST_START(uint64_t{1}, "/macros");
    REGISTER_DONE(2u);
    CHECK_FALSE(MYAPP_REQUEST_START_ENABLED());
    std::set<std::string> probes;
    for (const ProbeNote &note : self_probe_notes()) {
        probes.insert(note.provider + ":" + note.name);
    }
    CHECK(probes == std::set<std::string>{"myapp:request__start", "register:done"});
    CHECK(myapp::request_start == 0);
    CHECK(usdt::integer_argument + usdt::string_argument == 0);
}
