/*
 * Fires every probe of keywords.d once, each argument an expression of its declared type.
 * Builds as C and as C++, where the C++ keywords among the argument names must not matter.
 */
#include "keywords.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct request {
    int id;
};

int main(int argc, char **argv) {
    const char *class_name = "Widget", *method = "render", *file = "widget.rb";
    int line = 12, operator_kind = 2, private_flag = 0;
    long new_count = -3;
    unsigned long delete_count = 3;
    short type_kind = -1;
    char virtual_kind = 'v';
    unsigned int pending = 5;
    struct request first = {1}, second = {2};
    struct request *chain[] = {&first, &second};
    void *cookies[] = {&first, &second};
    size_t length = 2;
    uint32_t size = 64;
    int token_label = 0, token_previous = 1, token_current = 2;
    int64_t sequence = -5;
    uint8_t message_flags = 0x81;
    uint16_t command = 7;
    int64_t sent = 1000;
    uint64_t received = 2000;
    int32_t status = -1;
    int8_t level = -2;
    bool busy = true;
    intptr_t handle = -9;
    uintptr_t cookie = (uintptr_t)&first;
    ssize_t delta = -1000;

    INTERP_METHOD_ENTRY(class_name, method, file, line);
    INTERP_OBJECT_NEW(class_name, file, line);
    INTERP_OPERATOR_CALL(operator_kind, new_count, delete_count, method, &first, private_flag,
                         type_kind, virtual_kind);
    INTERP_SCRIPT_COMPILE(file, line);
    INTERP_COMPILEQUEUE_DONE(pending);
    if (INTERP_GC_BEGIN_ENABLED()) {
        INTERP_GC_BEGIN();
    }
    INTERP_GC_END();
    INTERP_OBJECT_FREE(&first, class_name);
    INTERP_METHOD_RETURN(class_name, method, file, line);

    HOSTING_ARGS_PARSED(argc, argv);
    HOSTING_REQUEST_QUEUED(&second, &first);
    HOSTING_REQUEST_CHAIN(chain, cookies, length);

    VM_MESSAGE_SEND(class_name, method, size, token_label, token_previous, token_current,
                    sequence, message_flags);
    VM_USER_TRACE_I4S4(class_name, method, line, token_label, token_previous, token_current, file,
                       method, class_name, file);
    VM_PORT_CONTROL(class_name, file, command, sent, received, status, level, busy, handle,
                    cookie, delta, method);
    return 0;
}
