/* Fires strings.d's probes once each, in order, with the values test_trace_strings.py expects:
   strings with control bytes, quotes, backslashes, bytes that are not UTF-8, NULL, "" and one
   longer than a hit carries. The strings are on the stack (BPF reads them without usdt's help). */
#include <string.h>

#include "interp.h"

int main(void) {
    char sub[] = "main::run", file[] = "/usr/share/perl5/App.pm", package[] = "App";
    char odd[] = "unit\x1fsep\x1erec\nline \"q\" back\\slash \xff\xfe caf\xc3\xa9";
    char empty[] = "";
    char long_text[100];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    memcpy(long_text, "long:", 5);
    char exact[64];     /* 63 bytes: as long as a hit carries, not cut */
    memset(exact, 'e', sizeof exact - 1);
    exact[sizeof exact - 1] = '\0';
    STRS_SUB_ENTRY(sub, file, 42, package);
    STRS_METHOD_ENTRY(NULL, odd, empty, -7);
    STRS_WIDE(sub, 1, NULL, -3000000000L, empty, 5, odd, 7000000000L, long_text, -9, exact, 11);
    STRS_LETTER('a', '\x1f', NULL);
    STRS_LETTER('\'', '\xff', exact);
    return 0;
}
