/* The probes of libstdc++'s exception runtime, written as libstdc++ writes them: unwind-cxx.h
   defines PROBE2 only where sys/sdt.h is of note type 3 or later, else as nothing, and
   __cxa_throw, __cxa_rethrow and __cxa_begin_catch (eh_throw.cc, eh_catch.cc) call it with the
   exception object and its std::type_info. The C++ builds of tests/sdt/test_sdt.py link it in:
   a header that lost _SDT_NOTE_TYPE or STAP_PROBE2 leaves no libstdcxx probe in the program.
   The object starts with its message, so that a tracer reading the first argument as a string
   shows which object it was given. Nothing is thrown: libstdc++'s own probes stay quiet. */
#include <sys/sdt.h>
#include <typeinfo>

#if defined(STAP_PROBE2) && _SDT_NOTE_TYPE >= 3
#define PROBE2(name, arg1, arg2) STAP_PROBE2(libstdcxx, name, arg1, arg2)
#endif

#ifndef PROBE2
#define PROBE2(name, arg1, arg2)
#endif

struct sdt_overflow {
    char what[16];
};

static sdt_overflow thrown = {"overflow"};

/* One function each, as in the runtime. */
__attribute__((noinline)) static void sdt_cxa_throw(void *obj, std::type_info *tinfo) {
    PROBE2(throw, obj, tinfo);
}

__attribute__((noinline)) static void sdt_cxa_rethrow(void *obj, std::type_info *tinfo) {
    PROBE2(rethrow, obj, tinfo);
}

__attribute__((noinline)) static void *sdt_cxa_begin_catch(void *obj, std::type_info *tinfo) {
    PROBE2(catch, obj, tinfo);
    return obj;
}

extern "C" int sdt_exceptions(void);

int sdt_exceptions(void) {
    std::type_info *type = const_cast<std::type_info *>(&typeid(sdt_overflow));
    sdt_cxa_throw(&thrown, type);
    sdt_cxa_rethrow(&thrown, type);
    return static_cast<sdt_overflow *>(sdt_cxa_begin_catch(&thrown, type))->what[0] == 'o';
}
