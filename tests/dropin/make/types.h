/* The probe argument types, as macros: a .d file understands no typedef of C's headers. */
#define request_id int
#define byte_count long
