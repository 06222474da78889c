/* Directives send the file through the C preprocessor; markers keep the lines. */
#define ID_T uint32_t
#ifndef LIMIT
#define LIMIT 4
#endif
provider pre {
    probe seen(ID_T id, int8_t small, int16_t medium);
#if LIMIT > 2
    probe limited(unsigned char a, signed char b, unsigned short c, short d, long e);
#endif
};
