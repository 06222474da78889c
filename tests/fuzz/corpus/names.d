/* Names that are C++ keywords or that differ only in '__', the generator's renaming cases. */
provider class {
    probe delete(int new, long this);
    probe request__start(pid_t pid, uid_t uid, gid_t gid, mode_t mode, off_t offset, time_t when);
    probe operator(ssize_t a, ptrdiff_t b, intptr_t c, uintptr_t d, intmax_t e, uintmax_t f);
};
provider Mixed_Case {
    probe _private(_Bool flag, unsigned int u, long long ll, unsigned long ul);
    probe twelve(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9,
                 int a10, int a11);
};
