/* Probes compiled into the object library `objects`. */
provider objects {
    probe built(uint16_t count);
};
