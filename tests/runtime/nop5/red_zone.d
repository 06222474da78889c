/* The probe of red_zone.c, built with the USDT_X86_NOP5 opt-in. */
provider red_zone {
    probe nop5(int64_t seed);
};
