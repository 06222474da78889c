/*
 * The generated header in a translation unit that defines USDT_DISABLE: it compiles, probes
 * vanish (no notes in this program), every _ENABLED() is false, and arguments are still
 * evaluated exactly once.
 */
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#define USDT_DISABLE
#include "runtime_probes.h"
#include "self_elf.h"

static_assert(USDT_HAVE_PROBES == 0, "USDT_DISABLE turns probes off");

TEST_CASE("no probe is ever enabled, even with its semaphore raised") {
    // The generated source, compiled without USDT_DISABLE, still defines the semaphores.
    myapp_tick_semaphore = 1;
    register_done_semaphore = 1;
    CHECK_FALSE(MYAPP_TICK_ENABLED());
    CHECK_FALSE(myapp::tick_enabled());
    CHECK_FALSE(REGISTER_DONE_ENABLED());
    CHECK_FALSE(register_::done_enabled());
    CHECK_FALSE(myapp::delete_enabled());
    myapp_tick_semaphore = 0;
    register_done_semaphore = 0;
}

TEST_CASE("arguments are still evaluated exactly once") {
    int id = 0, path = 0, kind = 0, flag = 0, level = 0, offset = 0, object = 0, count = 0;
    MYAPP_REQUEST_START(++id, (++path, "/index"));
    MYAPP_CLASS(++kind, ++flag, ++level, ++offset);
    myapp::delete_((++object, &object));
    register_::done(++count);
    MYAPP_TICK();
    myapp::tick();
    CHECK(id == 1);
    CHECK(path == 1);
    CHECK(kind == 1);
    CHECK(flag == 1);
    CHECK(level == 1);
    CHECK(offset == 1);
    CHECK(object == 1);
    CHECK(count == 1);
}

TEST_CASE("a disabled probe is still one statement") {
    int then_branch = 0, else_branch = 0;
    for (int i = 0; i < 3; ++i)
        if (i == 0)
            MYAPP_REQUEST_DONE(++then_branch);
        else
            myapp::request_done(++else_branch);
    CHECK(then_branch == 1);
    CHECK(else_branch == 2);
}

TEST_CASE("the probes left no notes in this program") {
    CHECK(self_probe_notes().empty());
}
