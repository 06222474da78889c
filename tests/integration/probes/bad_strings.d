/*
 * String probes passed pointers nothing can read (programs/bad_strings.c and .cpp): one with a
 * semaphore, one without. Expected: ../test_bad_strings.py.
 */
#pragma usdt no_semaphore bad:unguarded
provider bad {
    probe text(int number, const char *text);
    probe unguarded(int number, const char *text);
};
