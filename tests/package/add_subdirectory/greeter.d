/* The add_subdirectory consumer's probes. */
provider greeter {
    probe greeting(int number, string name);
    probe done(unsigned count);
};
