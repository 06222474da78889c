/*
 * Several providers in one file, as interpreters and virtual machines declare theirs:
 * argument names that are C++ keywords, mixed-case probe names, D's string type, struct
 * pointers and pointers to pointers, probes without arguments, and probes of 8, 10 and
 * 12 arguments (12 is the most sys/sdt.h takes). No `(void)` lists: systemtap's dtrace
 * reads `probe x(void)` as one argument and makes X(arg1).
 */
provider interp {
	probe method__entry(const char *class, const char *method, const char *file, int line);
	probe method__return(const char *class, const char *method, const char *file, int line);
	probe object__new(const char *class, const char *file, int line);
	probe object__free(void *this, const char *class);
	probe operator__call(int operator, long new, unsigned long delete, const char *template,
	                     void *namespace, int private, short typename, char virtual);
	probe Script__Compile(string file, int line);
	probe compileQueue__Done(unsigned int pending);
	probe GC__Begin();
	probe GC__End();
};

provider hosting {
	probe args__parsed(int argc, char **argv);
	probe request__queued(struct request *request, const struct request *previous);
	probe request__chain(struct request **chain, void **cookies, size_t length);
};

provider vm {
	probe message__send(string sender, string receiver, uint32_t size, int token_label,
	                    int token_previous, int token_current, int64_t sequence, uint8_t flags);
	probe user__trace__i4s4(string proc, string user_tag, int i1, int i2, int i3, int i4,
	                        string s1, string s2, string s3, string s4);
	probe port__control(string port, string driver, uint16_t command, int64_t sent,
	                    uint64_t received, int32_t status, int8_t level, bool busy,
	                    intptr_t handle, uintptr_t cookie, ssize_t delta, const char *reason);
};
