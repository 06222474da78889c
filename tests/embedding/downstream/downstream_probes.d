/* The downstream program's own probe, where usdt is found. */
provider downstream {
    probe round(int round);
};
