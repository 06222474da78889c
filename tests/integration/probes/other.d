/* A second provider file in the same targets as myapp.d. */
provider other {
    probe tick(uint64_t n, short k);
};
