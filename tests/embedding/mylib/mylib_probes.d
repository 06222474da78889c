/* mylib's probes: fired by the library itself and by the inline functions of its public
   header, in whichever module calls them. */
provider mylib {
    probe tick(int value, const char *where);
};
