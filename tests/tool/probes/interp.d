/* Probes shaped like real interpreters' (programs/strings.c): strings of every kind, and many arguments. */
provider strs {
    /* Perl's perl:sub__entry and Ruby's ruby:method__entry. */
    probe sub__entry(string sub, string file, int line, string package);
    probe method__entry(string class, string method, string file, int line);
    /* Twelve arguments, strings and integers mixed. */
    probe wide(string s0, int i1, string s2, long i3, string s4, int i5, string s6, long i7, string s8,
               int i9, string s10, long i11);
    probe letter(char letter, char control, string text);
};
