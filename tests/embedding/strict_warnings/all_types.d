/* Every kind of argument type the generator accepts, for the compiler and standard matrix. */
provider matrix {
    probe no__args();
    probe void__args(void);
    probe signed__keywords(char c, signed char sc, short s, int i, long l, long long ll);
    probe unsigned__keywords(unsigned char uc, unsigned short us, unsigned u, unsigned int ui,
                             unsigned long ul, unsigned long long ull);
    probe spelled__out(short int si, long int li, long long int lli, signed int sgi,
                       unsigned short int usi, long unsigned int lui);
    probe fixed__width(int8_t a, int16_t b, int32_t c, int64_t d,
                       uint8_t e, uint16_t f, uint32_t g, uint64_t h);
    probe sizes(size_t size, ssize_t ssize, ptrdiff_t difference, intptr_t ip, uintptr_t up,
                intmax_t im, uintmax_t um);
    probe flags(bool b, _Bool raw);
    probe pointers(string s, char *cs, const char *ccs, void *p, const void *cp,
                   struct matrix_point *point, int **pp, const volatile int *cvp);
    probe twelve(int8_t a0, uint8_t a1, int16_t a2, uint16_t a3, int32_t a4, uint32_t a5,
                 int64_t a6, uint64_t a7, bool a8, string a9, void *a10, long a11);
    probe unnamed(int, const char *);
    probe delete(int id);
};
