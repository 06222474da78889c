/*
 * Type aliases through the C preprocessor, as database servers and language runtimes write
 * their provider files: a local header included for its settings, aliases of aliases,
 * a type keyword redefined, an alias and a probe chosen by #if, unnamed arguments, and
 * probes of 7 and 8 arguments. Needs `dtrace -C` (usdt always preprocesses such a file).
 */
#include "aliases_config.h"

#define uint32 unsigned int
#define int32 signed int
#define TxnId uint32                /* TxnId -> uint32 -> unsigned int */
#define RelationId uint32
#define PageNumber uint32
#define LockLevel int32
#define ForkKind int
#define bool unsigned char          /* the server's bool is a byte */

#if STORE_LARGE_FILES
#define FileOffset int64_t
#else
#define FileOffset int32_t
#endif

provider store {
	probe txn__begin(TxnId);
	probe txn__commit(TxnId);
	probe lock__wait__start(RelationId, LockLevel);
	probe lock__wait__done(RelationId, LockLevel, bool);
	probe page__read__start(ForkKind, PageNumber, RelationId, RelationId, RelationId, int, bool);
	probe page__read__done(ForkKind, PageNumber, RelationId, RelationId, RelationId, int, bool, bool);
	probe page__write__done(ForkKind, PageNumber, RelationId, RelationId, RelationId, int, FileOffset, int);
	probe statement__parse(const char *);
#if STORE_TRACE_LOCK_DETAIL
	probe lock__detail(RelationId, const char *, LockLevel);
#endif
};
