/*
 * The generated header in a translation unit that defines USDT_DISABLE: it compiles, probes
 * vanish (no notes in this program), every _ENABLED() is false, and arguments are still
 * evaluated exactly once.
 */
#include <doctest/doctest.h>

#define USDT_DISABLE
#include "runtime_probes.h"
#include "evaluation_counters.h"
#include "self_elf.h"

static_assert(USDT_HAVE_PROBES == 0, "USDT_DISABLE turns probes off");

TEST_CASE("no probe is ever enabled, even with its semaphore raised") {
    // The generated source, compiled without USDT_DISABLE, still defines the semaphores.
    myapp_tick_semaphore = 1;
    register_done_semaphore = 1;
    CHECK_FALSE(MYAPP_TICK_ENABLED());
    CHECK_FALSE(REGISTER_DONE_ENABLED());
    CHECK_FALSE(MYAPP_DELETE_ENABLED());
    myapp_tick_semaphore = 0;
    register_done_semaphore = 0;
}

TEST_CASE("arguments are still evaluated exactly once") {
    EvaluationCounters counters;
    MYAPP_REQUEST_START(++counters.id, (++counters.path, "/index"));
    MYAPP_CLASS(++counters.kind, ++counters.flag, ++counters.level, ++counters.offset);
    myapp::delete_((++counters.object, &counters.object));
    register_::done(++counters.count);
    MYAPP_TICK();
    myapp::tick();
    counters.check_each_once();
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
