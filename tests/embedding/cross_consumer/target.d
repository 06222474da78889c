/* Which probe exists, and its argument's type, depend on the target: the preprocessor must
   be the target's compiler, with its --target and --sysroot. target_word.h is a header of
   the target's sysroot. */
#include <target_word.h>

provider target {
#if defined(__aarch64__)
    probe aarch64(TARGET_WORD word, const char *name);
#else
    probe host(int number);
#endif
};
