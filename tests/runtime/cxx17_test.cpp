/*
 * The C++ API with C++17 types: std::string_view arguments (copied, since a view need not end
 * in a NUL) and user types formatted through usdt_format(). Both are prepared only while the
 * probe is enabled; here the test raises the semaphore itself, as gdb does.
 */
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "runtime_probes.h"

#include <string>
#include <string_view>

namespace shop {
struct Order {
    int id;
};

int formatted_orders = 0;

// Found by argument-dependent lookup: the customization point for string arguments.
std::string usdt_format(const Order &order) {
    ++formatted_orders;
    return "{\"order\":" + std::to_string(order.id) + "}";
}
}  // namespace shop

namespace {
struct RaisedSemaphore {
    explicit RaisedSemaphore(volatile unsigned short &semaphore) : semaphore_(semaphore) { semaphore_ = 1; }
    ~RaisedSemaphore() { semaphore_ = 0; }
    volatile unsigned short &semaphore_;
};
}  // namespace

TEST_CASE("a formatted argument is computed only while the probe is enabled, then once") {
    shop::formatted_orders = 0;
    myapp::request_start(1, shop::Order{7});
    CHECK(shop::formatted_orders == 0);
    {
        RaisedSemaphore traced(myapp_request__start_semaphore);
        myapp::request_start(2, shop::Order{8});
    }
    CHECK(shop::formatted_orders == 1);
}

TEST_CASE("a view argument is copied into a terminated string") {
    using Argument = usdt::detail::string_argument<std::string_view>;
    static_assert(Argument::accepted && Argument::costly, "views are copied, so only when enabled");
    const std::string text = "GET /index.html";
    CHECK(std::string(Argument(std::string_view(text).substr(0, 3)).get()) == "GET");
    const std::string long_text(1000, 'x');
    CHECK(std::string(Argument(long_text).get()).size() == usdt::detail::view_copy_limit);
    RaisedSemaphore traced(myapp_request__start_semaphore);
    myapp::request_start(3, std::string_view(text).substr(4));
}

TEST_CASE("strings that need no preparation never read the semaphore's verdict") {
    static_assert(!usdt::detail::string_argument<std::string>::costly, "c_str() is free");
    static_assert(!usdt::detail::string_argument<const char *>::costly, "a pointer is free");
    static_assert(!usdt::detail::string_argument<decltype("literal")>::costly, "arrays decay");
    CHECK(true);
}
