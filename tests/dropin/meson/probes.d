provider myapp {
    probe request__start(int id, char *method);
    probe request__done(int id, long bytes, char *status);
};
