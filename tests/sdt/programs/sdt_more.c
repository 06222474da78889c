/* The probes of tests/sdt/programs/sdt_probes.c that need settings of their own: semaphores
   (_SDT_HAS_SEMAPHORES, each declared here as systemtap's dtrace -h declares it), STAP_PROBEV
   and probes inside asm statements. sdt_more() returns whether the semaphore of sdt:guarded was
   raised, as a tracer attached to it raises it. */
#if (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || (defined(__cplusplus) && __cplusplus >= 201103L)
#define SDT_VARIADIC_MACROS 1
#define SDT_USE_VARIADIC 1
#endif
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdint.h>

#define SDT_SEMAPHORE(name) __attribute__((section(".probes"))) volatile unsigned short name = 0
SDT_SEMAPHORE(sdt_guarded_semaphore);
SDT_SEMAPHORE(sdt_variadic0_semaphore);
SDT_SEMAPHORE(sdt_variadic3_semaphore);
SDT_SEMAPHORE(sdt_asm_template_semaphore);
SDT_SEMAPHORE(sdt_asm_specs_semaphore);

#ifdef __cplusplus
extern "C"
#endif
int sdt_more(int round);

int sdt_more(int round) {
    int enabled = sdt_guarded_semaphore != 0;
    STAP_PROBE2(sdt, guarded, round, enabled);
#if defined(SDT_VARIADIC_MACROS)
    STAP_PROBEV(sdt, variadic0);
    STAP_PROBEV(sdt, variadic3, round, (long)round * 1000, "three");
#endif
    /* Systemtap's header has the variadic STAP_PROBE_ASM in C only. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
    __asm__ __volatile__("nop\n" STAP_PROBE_ASM(sdt, asm_template, STAP_PROBE_ASM_TEMPLATE(2)) "nop"
                         : : STAP_PROBE_ASM_OPERANDS(2, round, ((uint64_t)round << 33) + 5));
#if defined(__x86_64__)
    __asm__ __volatile__("movl $42, %%eax\n" STAP_PROBE_ASM(sdt, asm_specs, -4@%%eax) : : : "eax");
#endif
#endif
    return enabled;
}
