// kvserver: a toy in-memory key-value server with USDT probes.
//
// It serves a generated, repeatable stream of GET/PUT/DEL requests in batches of four,
// pausing between batches so that a live trace is easy to follow, and fires the probes
// declared in kvserver.d. Run it with --count and --interval-ms to make it finish sooner.
#include "kvserver.h"  // generated from kvserver.d by usdt_add_provider()

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

namespace {

constexpr std::uint32_t batch_size = 4;

struct Request {
    std::uint64_t id;
    std::string op;   // "GET", "PUT" or "DEL"
    std::string key;
};

struct BatchStats {
    std::uint32_t requests = 0, puts = 0, gets = 0, deletes = 0, misses = 0;
};

// Request `id` (from 1) is a PUT, GET or DEL, in turn, of one of four keys: a mix of
// hits and misses that is the same on every run.
Request make_request(std::uint64_t id) {
    static const char *const ops[] = {"DEL", "PUT", "GET"};
    return Request{id, ops[id % 3], "user:" + std::to_string(id / 2 % 4)};
}

class Store {
public:
    // Returns an HTTP-like status: 200 found/updated, 201 created, 204 deleted, 404 missing.
    int handle(const Request &request, BatchStats &stats) {
        auto found = values_.find(request.key);
        if (request.op == "PUT") {
            ++stats.puts;
            bool created = found == values_.end();
            values_[request.key] = "value-" + std::to_string(request.id);
            return created ? 201 : 200;
        }
        if (request.op == "GET") {
            ++stats.gets;
        } else {
            ++stats.deletes;
        }
        if (found == values_.end()) {
            ++stats.misses;
            kvserver::key_miss(request.id, request.key.c_str());
            return 404;
        }
        if (request.op == "DEL") {
            values_.erase(found);
            return 204;
        }
        return 200;
    }

    std::size_t size() const { return values_.size(); }

    // Costs an allocation and a walk over every key: done only while a tracer listens.
    // At most 61 characters: bpftrace's str() reads 64 bytes by default.
    std::string summary(const BatchStats &stats) const {
        std::ostringstream text;
        text << stats.puts << " PUT " << stats.gets << " GET " << stats.deletes << " DEL, "
             << stats.misses << " misses, keys";
        for (const auto &entry : values_) {
            text << ' ' << entry.first;
        }
        return text.str();
    }

private:
    std::map<std::string, std::string> values_;  // ordered, so summaries are repeatable
};

struct Options {
    std::uint64_t count = 40;
    long interval_ms = 500;
};

bool parse_number(const char *text, unsigned long long &value) {
    char *end = nullptr;
    value = std::strtoull(text, &end, 10);
    return *text != '\0' && *text != '-' && *end == '\0';
}

bool parse_options(int argc, char **argv, Options &options) {
    for (int i = 1; i < argc; i += 2) {
        unsigned long long value = 0;
        if (i + 1 < argc && std::strcmp(argv[i], "--count") == 0 && parse_number(argv[i + 1], value)) {
            options.count = value;
        } else if (i + 1 < argc && std::strcmp(argv[i], "--interval-ms") == 0 && parse_number(argv[i + 1], value)) {
            options.interval_ms = static_cast<long>(value);
        } else {
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char **argv) {
    Options options;
    if (!parse_options(argc, argv, options)) {
        std::cerr << "usage: " << argv[0] << " [--count N] [--interval-ms M]\n"
                  << "  serves N requests (default 40) in batches of " << batch_size
                  << ", pausing M ms (default 500) between batches\n";
        return 2;
    }
    std::cout << "kvserver: serving " << options.count << " requests, a batch of " << batch_size
              << " every " << options.interval_ms << " ms" << std::endl;

    Store store;
    std::uint32_t batch = 0;
    std::uint64_t misses = 0, summaries = 0;
    for (std::uint64_t next = 1; next <= options.count;) {
        if (batch > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(options.interval_ms));
        }
        ++batch;
        BatchStats stats;
        for (; stats.requests < batch_size && next <= options.count; ++stats.requests, ++next) {
            Request request = make_request(next);
            KVSERVER_REQUEST_START(request.id, request.op.c_str(), request.key.c_str());
            auto started = std::chrono::steady_clock::now();
            int status = store.handle(request, stats);
            auto latency = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - started);
            kvserver::request_done(request.id, status, static_cast<std::uint64_t>(latency.count()));
        }
        misses += stats.misses;
        // The summary is only worth building when someone is tracing batch__done.
        if (KVSERVER_BATCH_DONE_ENABLED()) {
            ++summaries;
            kvserver::batch_done(batch, stats.requests, store.size(), store.summary(stats));
        }
    }

    std::cout << "kvserver: " << options.count << " requests in " << batch << " batches, " << misses
              << " misses; summaries built for tracers: " << summaries << std::endl;
    return 0;
}
