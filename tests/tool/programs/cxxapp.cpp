/*
 * A C++ program: links libstdc++, whose own sys/sdt.h probes (libstdcxx:throw, catch, rethrow)
 * every process mapping it has. Fires cxxapp:work twice around one exception thrown and caught,
 * then exits 0. With `--wait` it first prints "ready" and waits for standard input to close.
 */
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include "cxxapp.h"

int main(int argc, char **argv) {
    // On the stack, not a literal: see kvserver.c.
    char before[] = "before", after[] = "after";
    if (argc > 1 && std::strcmp(argv[1], "--wait") == 0) {
        std::cout << "ready" << std::endl;
        std::string line;
        while (std::getline(std::cin, line)) {
        }
    }
    CXXAPP_WORK(1, before);
    try {
        throw std::runtime_error("thrown");
    } catch (const std::exception &) {
        CXXAPP_WORK(2, after);
    }
    return 0;
}
