/* Fires every kind of sys/sdt.h probe argument once, for tests/sdt/test_sdt.py, which builds it
   against usdt's header and systemtap's, as C89 to C23 and C++98 to C++23, and knows every value
   below (EXPECTED there). Valid in each of those modes, without a warning of its own under
   -Wall -Wextra -Wpedantic: the warnings counted are the headers'. */
#include <sys/sdt.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
int sdt_more(int round);
void sdt_asm_probe(int number, long word);
#ifdef __cplusplus
int sdt_exceptions(void); /* sdt_exceptions.cc, in the C++ builds */
}
typedef bool sdt_bool;
#define SDT_HAVE_BOOL 1
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
typedef _Bool sdt_bool;
#define SDT_HAVE_BOOL 1
#endif

enum colour { RED, GREEN, BLUE };
enum sign { MINUS = -2, PLUS = 2 };
struct bits {
    unsigned int low : 3;
    int sign : 5;
    unsigned int high : 24;
};

int8_t i8 = -8;
int16_t i16 = -16;
int32_t i32 = -32;
int64_t i64 = -64;
uint8_t u8 = 208;
uint16_t u16 = 65016;
uint32_t u32 = 4000000032u;
uint64_t u64 = ~(uint64_t)63;
char plain_char = 'c';
signed char schar = -3;
unsigned char uchar = 253;
short sshort = -300;
unsigned short ushort = 65000;
long slong = -70000;
unsigned long ulong = 70000;
const char *text = "text";
volatile int *volatile_pointer = (volatile int *)0x1000;
const volatile long *cv_pointer = (const volatile long *)0x2000;
const int *const const_pointer = (const int *)0x3000;
char buffer[8] = "buffer";
int numbers[3] = {1, 2, 3};
enum colour colour = BLUE;
enum sign sign = MINUS;
const volatile int cv_int = -42;
volatile unsigned char v_uchar = 250;
struct bits bits = {5, -7, 100000};
#if defined(SDT_HAVE_BOOL)
sdt_bool flag = 1;
#endif
double dbl = 2.75;
float flt = -3.5f;
#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 sdt_int128;
sdt_int128 wide = ((sdt_int128)1 << 70) - 3;
#endif

/* STAP_PROBEn and DTRACE_PROBEn take the first n of these. */
int8_t a1 = -1;
uint16_t a2 = 2;
int32_t a3 = -3;
uint64_t a4 = 4;
long a5 = -5;
unsigned char a6 = 6;
short a7 = -7;
unsigned int a8 = 8;
int64_t a9 = -9;
signed char a10 = 10;
unsigned long a11 = 11;
int a12 = -12;

static void fire(void) {
    const short c_short = -5;
    STAP_PROBE(sdt, none);
    STAP_PROBE4(sdt, signed, i8, i16, i32, i64);
    STAP_PROBE4(sdt, unsigned, u8, u16, u32, u64);
    STAP_PROBE7(sdt, plain, plain_char, schar, uchar, sshort, ushort, slong, ulong);
    STAP_PROBE4(sdt, pointers, text, volatile_pointer, cv_pointer, const_pointer);
    STAP_PROBE3(sdt, arrays, buffer, "literal", numbers);
    STAP_PROBE2(sdt, enums, colour, sign);
    STAP_PROBE5(sdt, constants, 5, -1, 'x', 40000u, (int64_t)1 << 40);
    STAP_PROBE3(sdt, qualified, cv_int, c_short, v_uchar);
    STAP_PROBE3(sdt, bitfields, (unsigned int)bits.low, (int)bits.sign, (unsigned int)bits.high);
#if defined(__cplusplus) && defined(SDT_TEST_BITFIELDS) /* systemtap's header rejects bit-fields */
    STAP_PROBE3(sdt, bitfields_direct, bits.low, bits.sign, bits.high);
#endif
#if defined(SDT_HAVE_BOOL)
    STAP_PROBE1(sdt, boolean, flag);
#endif
    _SDT_PROBE(sdt, underscore, 2, (i32, text));
    STAP_PROBE2(sdt, floating, dbl, flt);
#if defined(__SIZEOF_INT128__)
    STAP_PROBE1(sdt, wide, wide);
#endif
    STAP_PROBE1(sdt, stap1, a1);
    STAP_PROBE2(sdt, stap2, a1, a2);
    STAP_PROBE3(sdt, stap3, a1, a2, a3);
    STAP_PROBE4(sdt, stap4, a1, a2, a3, a4);
    STAP_PROBE5(sdt, stap5, a1, a2, a3, a4, a5);
    STAP_PROBE6(sdt, stap6, a1, a2, a3, a4, a5, a6);
    STAP_PROBE7(sdt, stap7, a1, a2, a3, a4, a5, a6, a7);
    STAP_PROBE8(sdt, stap8, a1, a2, a3, a4, a5, a6, a7, a8);
    STAP_PROBE9(sdt, stap9, a1, a2, a3, a4, a5, a6, a7, a8, a9);
    STAP_PROBE10(sdt, stap10, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10);
    STAP_PROBE11(sdt, stap11, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
    STAP_PROBE12(sdt, stap12, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12);
    DTRACE_PROBE(sdt, dtrace0);
    DTRACE_PROBE1(sdt, dtrace1, a1);
    DTRACE_PROBE2(sdt, dtrace2, a1, a2);
    DTRACE_PROBE3(sdt, dtrace3, a1, a2, a3);
    DTRACE_PROBE4(sdt, dtrace4, a1, a2, a3, a4);
    DTRACE_PROBE5(sdt, dtrace5, a1, a2, a3, a4, a5);
    DTRACE_PROBE6(sdt, dtrace6, a1, a2, a3, a4, a5, a6);
    DTRACE_PROBE7(sdt, dtrace7, a1, a2, a3, a4, a5, a6, a7);
    DTRACE_PROBE8(sdt, dtrace8, a1, a2, a3, a4, a5, a6, a7, a8);
    DTRACE_PROBE9(sdt, dtrace9, a1, a2, a3, a4, a5, a6, a7, a8, a9);
    DTRACE_PROBE10(sdt, dtrace10, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10);
    DTRACE_PROBE11(sdt, dtrace11, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
    DTRACE_PROBE12(sdt, dtrace12, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12);
}

/* BPF cannot fault a page in: the strings' page is read once first, for bpftrace's str(). */
volatile char touched;

int main(int argc, char **argv) {
    (void)argv;
    touched = text[0];
    fire();
    sdt_asm_probe(7, -8);
#ifdef __cplusplus
    if (!sdt_exceptions())
        return 4;
#endif
    return sdt_more(argc) ? 0 : 3; /* 0 only under a tracer, which raises the semaphore */
}
