/*
 * comments.d's probes, each fired once with values of the declared types. Builds as C and
 * as C++.
 */
#include "comments.h"

int main(void) {
    static int object;
    const char *klass = "virObject";

    VIRT_OBJECT_NEW(&object, klass);
    VIRT_OBJECT_REF(&object);
    VIRT_OBJECT_UNREF(&object);
    VIRT_RPC_SERVER_CLIENT_MSG_TX_QUEUE(&object, 24, 0x20008086, 1, 66, 0, 0, 7);
    return 0;
}
