/*
 * The C++ API with C++17 types: std::string_view arguments (copied, since a view need not end
 * in a NUL) and user types formatted through usdt_format(). Both are prepared only while the
 * probe is enabled; here the test raises the semaphore itself, as gdb does.
 */
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

TEST_CASE("a view argument is copied into a terminated string, of at most 255 bytes, while traced") {
    usdt::string_buffer buffer;
    RaisedSemaphore traced(myapp_request__start_semaphore);
    const std::string text = "GET /index.html";
    const std::string_view method = std::string_view(text).substr(0, 3);
    usdt::string_argument<1> view(method);
    CHECK(view.costly());
    CHECK(std::string(view.prepared(buffer, MYAPP_REQUEST_START_ENABLED())) == "GET");
    const std::string long_text(1000, 'x');
    const std::string_view long_view(long_text);
    usdt::string_argument<1> cut(long_view);
    CHECK(std::string(cut.prepared(buffer, MYAPP_REQUEST_START_ENABLED())) == std::string(255, 'x'));
    myapp::request_start(3, std::string_view(text).substr(4));
}

TEST_CASE("untraced, a view is not copied and the site records no string") {
    usdt::string_buffer buffer;
    const std::string text = "GET";
    const std::string_view method(text);
    usdt::string_argument<1> view(method);
    CHECK(view.prepared(buffer, MYAPP_REQUEST_START_ENABLED()) == nullptr);
}

TEST_CASE("a formatted argument records what usdt_format() returns") {
    usdt::string_buffer buffer;
    RaisedSemaphore traced(myapp_request__start_semaphore);
    shop::Order order{1};
    usdt::string_argument<1> formatted(order);
    CHECK(formatted.costly());
    CHECK(std::string(formatted.prepared(buffer, MYAPP_REQUEST_START_ENABLED())) == "{\"order\":1}");
}

TEST_CASE("strings that need no preparation are passed as they are") {
    const std::string text = "kept";
    CHECK(!usdt::string_argument<1>(text).costly());
    CHECK(!usdt::string_argument<1>(text.c_str()).costly());
    CHECK(!usdt::string_argument<1>(nullptr).costly());
    CHECK(usdt::string_argument<1>(text).text() == text.c_str());
    CHECK(usdt::string_argument<1>(text.c_str()).text() == text.c_str());
    CHECK(usdt::string_argument<1>(nullptr).text() == nullptr);
}
