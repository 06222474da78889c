// Stores each key on its command line, firing app:request through the C++ API, with a
// std::string, and app:stored through the dtrace -h style macro when a tracer listens.
#include "probes.h"
#include "store.h"

#include <cstdint>
#include <cstdio>
#include <string>

int main(int argc, char **argv) {
    unsigned long count = 0;
    for (int index = 1; index < argc; ++index) {
        const std::string key = std::string("key:") + argv[index];
        app::request(static_cast<std::uint64_t>(index), key);
        count = store_put(key.c_str());
    }
    if (APP_STORED_ENABLED()) {
        APP_STORED(static_cast<std::uint32_t>(count));
    }
    std::printf("stored %lu keys\n", count);
    return 0;
}
