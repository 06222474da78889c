/*
 * Tests of usdt/usdt.h and of the header generated from runtime_probes.d, in a program built
 * with probes on x86-64 Linux and no tracer attached: semaphores, exactly-once argument
 * evaluation, macro hygiene, the C++ API's types, and the program's own .note.stapsdt.
 */
#include <doctest/doctest.h>

#include "runtime_probes.h"
#include "runtime_probes.h"  // A second time: the include guard must make this harmless.
#include "evaluation_counters.h"
#include "self_elf.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>

#ifndef USDT_ABI_VERSION
#error "usdt/usdt.h must define USDT_ABI_VERSION"
#endif
static_assert(USDT_HAVE_PROBES == 1, "x86-64 Linux without USDT_DISABLE must emit probes");

volatile unsigned short *second_unit_request_done_semaphore();
void second_unit_request_done(int status);

namespace {

// Every semaphore of runtime_probes.d, by "provider:probe" as the notes name them.
const std::map<std::string, volatile unsigned short *> semaphores = {
    {"myapp:request__start", &myapp_request__start_semaphore},
    {"myapp:request__done", &myapp_request__done_semaphore},
    {"myapp:tick", &myapp_tick_semaphore},
    {"myapp:delete", &myapp_delete_semaphore},
    {"myapp:class", &myapp_class_semaphore},
    {"myapp:tiny", &myapp_tiny_semaphore},
    {"register:done", &register_done_semaphore},
};

// doctest cannot print volatile pointers; compare addresses as integers.
std::uintptr_t address_of(volatile unsigned short *semaphore) {
    return reinterpret_cast<std::uintptr_t>(semaphore);
}

bool any_macro_enabled() {
    return MYAPP_REQUEST_START_ENABLED() || MYAPP_REQUEST_DONE_ENABLED() || MYAPP_TICK_ENABLED()
        || MYAPP_DELETE_ENABLED() || MYAPP_CLASS_ENABLED() || MYAPP_TINY_ENABLED() || REGISTER_DONE_ENABLED();
}

}  // namespace

TEST_CASE("usdt.h emits probes here and states its ABI version") {
    CHECK(USDT_HAVE_PROBES == 1);
    CHECK(USDT_ABI_VERSION >= 1);
}

TEST_CASE("no probe is enabled without a tracer") {
    CHECK_FALSE(any_macro_enabled());
}

TEST_CASE("a raised semaphore enables its probe, and only its probe") {
    // What gdb does when it attaches: write the semaphore in memory.
    myapp_class_semaphore = 1;
    CHECK(MYAPP_CLASS_ENABLED());
    CHECK_FALSE(MYAPP_DELETE_ENABLED());
    CHECK_FALSE(REGISTER_DONE_ENABLED());
    myapp_class_semaphore = 0;
    CHECK_FALSE(any_macro_enabled());
}

TEST_CASE("semaphores are distinct 2-byte zeros in the .probes section, hidden") {
    static_assert(std::is_same<decltype(myapp_request__start_semaphore), volatile unsigned short>::value,
                  "a semaphore is a volatile unsigned short");
    static_assert(sizeof myapp_request__start_semaphore == 2, "a semaphore is 2 bytes");

    const std::vector<SelfSection> probes_sections = self_sections(".probes");
    REQUIRE(probes_sections.size() == 1);
    const SelfSection &probes = probes_sections.front();
    std::set<std::uintptr_t> addresses;
    for (const auto &entry : semaphores) {
        CAPTURE(entry.first);
        const std::uintptr_t address = address_of(entry.second);
        CHECK(*entry.second == 0);
        CHECK(address >= probes.address);
        CHECK(address + 2 <= probes.address + probes.bytes.size());
        addresses.insert(address);
    }
    CHECK(addresses.size() == semaphores.size());
    // This program exports its symbols; a hidden semaphore is still not among them.
    CHECK(dlsym(RTLD_DEFAULT, "myapp_request__start_semaphore") == nullptr);
}

TEST_CASE("two translation units share one semaphore") {
    CHECK(address_of(second_unit_request_done_semaphore()) == address_of(&myapp_request__done_semaphore));
    second_unit_request_done(500);
}

TEST_CASE("macros evaluate every argument exactly once") {
    EvaluationCounters counters;
    MYAPP_REQUEST_START(++counters.id, (++counters.path, "/index"));
    MYAPP_CLASS(++counters.kind, ++counters.flag, ++counters.level, ++counters.offset);
    MYAPP_DELETE((++counters.object, &counters.object));
    REGISTER_DONE(++counters.count);
    counters.check_each_once();
}

TEST_CASE("the C++ API evaluates every argument exactly once") {
    EvaluationCounters counters;
    myapp::request_start(++counters.id, (++counters.path, "/index"));
    myapp::class_((++counters.kind, 'k'), (++counters.flag, true), (++counters.level, short{1}), ++counters.offset);
    myapp::delete_((++counters.object, &counters.object));
    register_::done(++counters.count);
    counters.check_each_once();
}

TEST_CASE("a probe macro is one statement") {
    int then_branch = 0, else_branch = 0;
    for (int i = 0; i < 3; ++i)
        if (i == 0)
            MYAPP_REQUEST_DONE(++then_branch);
        else
            MYAPP_REQUEST_DONE(++else_branch);
    CHECK(then_branch == 1);
    CHECK(else_branch == 2);

    int ticks = 0;
    while (ticks < 4)
        MYAPP_CLASS('t', true, 0, ++ticks);
    CHECK(ticks == 4);

    // Arguments that are comma expressions or calls with several arguments. (Separate
    // counters: the order in which operands are evaluated is unspecified.)
    int first = 0, third = 0;
    MYAPP_CLASS((++first, 'c'), true, (++third, short{2}), std::max(1L, 2L));
    CHECK(first == 1);
    CHECK(third == 1);

    // _ENABLED() is an expression: usable in conditions, initializers and ?:.
    const bool enabled = MYAPP_TICK_ENABLED();
    CHECK((MYAPP_TICK_ENABLED() ? 1 : 2) == 2);
    CHECK_FALSE(enabled);
}

namespace {
enum class Status : int { ok = 200 };
enum Plain { plain = 7 };
}  // namespace

TEST_CASE("the C++ API takes what C++ code has and converts it to the declared types") {
    const std::string path = "/std/string";
    int object = 0;
    std::unique_ptr<int> owned(new int(1));
    myapp::request_start(42, "literal");
    myapp::request_start(UINT64_MAX, path);          // std::string: its c_str()
    myapp::request_start(0, nullptr);
    myapp::request_start(plain, path.c_str());       // an unscoped enum for an integer
    myapp::request_done(Status::ok);                  // a scoped one
    myapp::delete_(nullptr);
    myapp::delete_(&object);
    myapp::delete_(owned.get());
    myapp::class_('k', true, short{7}, -1);
    register_::done(3u);
    myapp::tick();
    myapp::tiny(std::uint8_t{200}, std::int8_t{-100}, std::int16_t{-30000}, std::uint16_t{60000});
    static_assert(noexcept(myapp::tick()) && noexcept(myapp::request_start(1, "x")), "probes never throw");
}

// What each argument type rejects is a compile error: test_compile_errors.py.
TEST_CASE("the C++ API's argument types hold what they take as the declared type") {
    CHECK(usdt::integer_argument<int, 0>(short{-3}).value == -3);
    CHECK(usdt::integer_argument<int, 0>(Status::ok).value == 200);
    CHECK(usdt::integer_argument<signed char, 0>('k').value == 'k');
    CHECK(usdt::integer_argument<std::uint32_t, 0>(-1).value == UINT32_MAX);  // as wide: converted as a cast
    CHECK(usdt::bool_argument<0>(true).value);
    int object = 0;
    volatile int shared = 0;
    CHECK(usdt::pointer_argument<0>(&object).value == &object);
    CHECK(usdt::pointer_argument<0>(&shared).value == const_cast<const int *>(&shared));
    CHECK(usdt::pointer_argument<0>(nullptr).value == nullptr);
}

TEST_CASE("the program's notes point at nops and at its semaphores") {
    const std::vector<ProbeNote> notes = self_probe_notes();
    const std::vector<SelfSection> base = self_sections(".stapsdt.base");
    REQUIRE(base.size() == 1);
    const std::uintptr_t bias = base.front().address - base.front().link_address;

    std::set<std::string> probes_with_notes;
    for (const ProbeNote &note : notes) {
        const std::string probe = note.provider + ":" + note.name;
        CAPTURE(probe);
        REQUIRE(semaphores.count(probe) == 1);
        probes_with_notes.insert(probe);
        CHECK(note.base == base.front().link_address);
        CHECK(note.semaphore + bias == address_of(semaphores.at(probe)));
#ifdef __x86_64__
        CHECK(*reinterpret_cast<const unsigned char *>(note.pc + bias) == 0x90);  // nop
#endif
    }
    CHECK(probes_with_notes.size() == semaphores.size());
}
