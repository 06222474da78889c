/* Probes whose arguments have side effects, for the USDT_DISABLE test. */
provider counted {
    probe pair(int first, int second);
    probe labelled(long value, string label);
    probe nothing();
    probe guarded(string report);
};
