/* sdt_asm.S's function, for the targets whose registers that file does not name. */
void sdt_asm_probe(int number, long word);

void sdt_asm_probe(int number, long word) {
    (void)number;
    (void)word;
}
