/* The static library linked into two shared libraries (programs/core.c): one probe, in both. */
provider core {
    probe hit(int who, long value, string from);
};
