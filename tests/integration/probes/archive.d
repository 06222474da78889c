/* Added both to the static library `archive` and to the program linking it: one semaphore. */
provider archive {
    probe fire(int32_t site, const char *where);
};
