/*
 * One counter per argument of the runtime_probes.d probes the tests fire: each argument
 * expression increments its own counter, so a probe that evaluates an argument twice, or
 * not at all, shows up in check_each_once(). Include after doctest.
 */
#ifndef USDT_TESTS_EVALUATION_COUNTERS_H
#define USDT_TESTS_EVALUATION_COUNTERS_H

struct EvaluationCounters {
    int id = 0, path = 0, kind = 0, flag = 0, level = 0, offset = 0, object = 0, count = 0;

    void check_each_once() const {
        CHECK(id == 1);
        CHECK(path == 1);
        CHECK(kind == 1);
        CHECK(flag == 1);
        CHECK(level == 1);
        CHECK(offset == 1);
        CHECK(object == 1);
        CHECK(count == 1);
    }
};

#endif
