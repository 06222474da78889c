/*
 * usdt verify's and usdt diff's program (programs/verify.c, test_verify.py): a probe every
 * build calls, one only some builds call, and one whose only site is in a function nobody
 * calls, which --gc-sections and LTO drop. verify_changed/verify.d changes an argument's type.
 */
provider verify {
    probe request(int count, const char *name);
    probe done(int status);
    probe rare(uint64_t id);
};
