/* The probe nop5_hit_cost.py measures, in hit_cost.c. */
provider nop5_bench {
    probe hit(uint64_t iteration);
};
