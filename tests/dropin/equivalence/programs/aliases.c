/*
 * Fires every probe of aliases.d once. Each argument is an expression of the type the .d
 * file declares (through its aliases), as a server passes its own typedefs, so sys/sdt.h,
 * which sizes the expression, and usdt, which sizes the declared type, record the same.
 * Builds as C and as C++.
 */
#include "aliases.h"
#include "aliases_config.h"

#include <stdint.h>

typedef unsigned int TxnId;
typedef unsigned int RelationId;
typedef unsigned int PageNumber;
typedef signed int LockLevel;
typedef int ForkKind;
typedef unsigned char flag;   /* the .d file's bool */
typedef int64_t FileOffset;

int main(void) {
    TxnId txn = 7001;
    RelationId database = 1, tablespace = 1663, relation = 16384;
    PageNumber page = 42;
    LockLevel level = 3;
    ForkKind fork = 0;
    flag extended = 0, hit = 1;
    int buffer = 12, status = 0;
    FileOffset offset = 42 * 8192;
    const char *statement = "SELECT 1";

    STORE_TXN_BEGIN(txn);
    STORE_LOCK_WAIT_START(relation, level);
    STORE_LOCK_WAIT_DONE(relation, level, hit);
    STORE_PAGE_READ_START(fork, page, tablespace, database, relation, buffer, extended);
    STORE_PAGE_READ_DONE(fork, page, tablespace, database, relation, buffer, extended, hit);
    STORE_PAGE_WRITE_DONE(fork, page, tablespace, database, relation, buffer, offset, status);
    if (STORE_STATEMENT_PARSE_ENABLED()) {
        STORE_STATEMENT_PARSE(statement);
    }
#if STORE_TRACE_LOCK_DETAIL
    STORE_LOCK_DETAIL(relation, statement, level);
#endif
    STORE_TXN_COMMIT(txn);
    return 0;
}
