/*
 * Probes with and without a semaphore, guarded, and with arguments prepared only while
 * traced: what is evaluated, and when.
 * Built twice: as it is, and with USDT_DISABLE (where nothing is ever enabled).
 */
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "flavours.h"
#include "self_elf.h"
#include "unguarded.h"

namespace {

// Counts the evaluations of each argument expression.
struct Arguments {
    int values = 0, labels = 0;

    uint64_t value() { return ++values, 7; }
    const char *label() { return ++labels, "seven"; }
};

// A string argument formatted through usdt_format(), which counts its calls.
struct Formatted {
    int *calls;
};

std::string usdt_format(const Formatted &formatted) {
    ++*formatted.calls;
    return "formatted";
}

// Where probes are emitted, a probe without a semaphore is always enabled; elsewhere never.
constexpr int bare_evaluations = USDT_HAVE_PROBES ? 1 : 0;

// What a tracer does when it attaches (gdb writes it; the kernel does it for uprobes).
struct TracerAttached {
    TracerAttached() { flavours_guarded_semaphore = 1; }
    ~TracerAttached() { flavours_guarded_semaphore = 0; }
};

}  // namespace

TEST_CASE("a probe without a semaphore is enabled by a constant") {
    static_assert(FLAVOURS_BARE_ENABLED() == USDT_HAVE_PROBES, "no semaphore: always enabled where probes exist");
    static_assert(UNGUARDED_PLAIN_ENABLED() == USDT_HAVE_PROBES, "NO_SEMAPHORES: always enabled where probes exist");
    CHECK_FALSE(FLAVOURS_GUARDED_ENABLED());
    CHECK_FALSE(UNGUARDED_KEPT_ENABLED());
}

TEST_CASE("a guarded C++ call evaluates nothing while disabled, each argument once while enabled") {
    Arguments arguments;
    if (FLAVOURS_GUARDED_ENABLED())
        flavours::guarded(arguments.value(), arguments.label());
    CHECK(arguments.values == 0);
    CHECK(arguments.labels == 0);
    {
        TracerAttached tracer;
        if (FLAVOURS_GUARDED_ENABLED())
            flavours::guarded(arguments.value(), arguments.label());
    }
    CHECK(arguments.values == bare_evaluations);
    CHECK(arguments.labels == bare_evaluations);
}

TEST_CASE("a formatted argument is prepared only while traced; without a semaphore, always") {
    int calls = 0;
    flavours::guarded(7u, Formatted{&calls});
    CHECK(calls == 0);
    {
        TracerAttached tracer;
        flavours::guarded(7u, Formatted{&calls});
    }
    CHECK(calls == bare_evaluations);
    flavours::bare(7u, Formatted{&calls});
    CHECK(calls == 2 * bare_evaluations);
}

TEST_CASE("the C pattern: an ENABLED() guard skips the arguments while disabled") {
    Arguments arguments;
    if (FLAVOURS_GUARDED_ENABLED())
        FLAVOURS_GUARDED(arguments.value(), arguments.label());
    CHECK(arguments.values == 0);
    {
        TracerAttached tracer;
        if (FLAVOURS_GUARDED_ENABLED())
            FLAVOURS_GUARDED(arguments.value(), arguments.label());
    }
    CHECK(arguments.values == bare_evaluations);
    CHECK(arguments.labels == bare_evaluations);
}

TEST_CASE("unguarded probes evaluate their arguments once, whatever the flavour") {
    Arguments arguments;
    FLAVOURS_BARE(arguments.value(), arguments.label());
    flavours::guarded(arguments.value(), arguments.label());
    UNGUARDED_PLAIN(static_cast<int>(arguments.value()));
    unguarded::kept(arguments.labels);
    CHECK(arguments.values == 3);
    CHECK(arguments.labels == 2);
}

TEST_CASE("notes record a semaphore only for the probes that have one") {
    const std::map<std::string, bool> has_semaphore = {
        {"flavours:guarded", true}, {"flavours:bare", false}, {"unguarded:plain", false}, {"unguarded:kept", true}};
    std::map<std::string, int> sites;
    for (const ProbeNote &note : self_probe_notes()) {
        const std::string probe = note.provider + ":" + note.name;
        CAPTURE(probe);
        REQUIRE(has_semaphore.count(probe) == 1);
        CHECK((note.semaphore != 0) == has_semaphore.at(probe));
        ++sites[probe];
    }
    if (USDT_HAVE_PROBES) {
        CHECK(sites.size() == has_semaphore.size());
    } else {
        CHECK(sites.empty());
    }
}
