/* The probe of the library stress.c loads and unloads over and over. */
provider stresslib {
    probe call(long value);
};
