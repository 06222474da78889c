/*
 * usdt's one deliberate difference from sys/sdt.h: the declared type decides each
 * argument's size and sign, where sys/sdt.h takes the type of whatever expression the
 * program passes. programs/declared_types.c passes int expressions to `narrowed` (the note
 * differs) and values of the declared types to `matching` (the notes agree).
 */
provider typed {
	probe narrowed(char level, unsigned short port, long total);
	probe matching(char level, unsigned short port, long total);
};
