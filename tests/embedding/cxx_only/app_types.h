/* Argument types of probes.d, which includes this file (the program does not). */
#define APP_COUNT unsigned int
