/*
 * usdt/usdt_cxx.h: the probe macros' argument checks and conversions in C++, for C++
 * translation units only (usdt/usdt_site.h has C's, and says what a macro does with an
 * argument). It builds on usdt/usdt_site.h; a generated header carries it after that file, for
 * C++ only, then usdt/usdt_cxx_api.h, the typed C++ API's argument types.
 *
 * It also holds the type traits usdt/usdt_cxx_api.h builds on (namespace usdt::detail). Macros
 * carry a `_USDT_` prefix; the spelling rule of usdt/usdt.h's comment (`char const *`) holds
 * here too.
 */
#ifndef USDT_USDT_CXX_H
#define USDT_USDT_CXX_H

#if !defined(__cplusplus)
#error "usdt/usdt_cxx.h is C++; C code includes usdt/usdt.h"
#endif
#if !defined(USDT_USDT_SITE_H) /* a generated header carries usdt/usdt_site.h before this file */
#include "usdt_site.h"
#endif

/* The type traits the probe macros (here) and the typed C++ API (usdt/usdt_cxx_api.h) need,
   one set for both, without <type_traits>, which alone costs a translation unit more to compile
   than all of them. */
namespace usdt {
namespace detail {

template <bool Value>
struct constant {
    static constexpr bool value = Value;
};
typedef constant<true> true_type;
typedef constant<false> false_type;

template <bool Condition, typename T = int>
struct enable_if {};
template <typename T>
struct enable_if<true, T> {
    typedef T type;
};
/* `template <typename T, when<condition> = 0>`: an overload taken only when the condition holds. */
template <bool Condition>
using when = typename enable_if<Condition>::type;

template <typename T>
T &&declval() noexcept;

template <typename T, typename U>
struct is_same : false_type {};
template <typename T>
struct is_same<T, T> : true_type {};

/* T without reference, const and volatile: an argument deduced from a `const T &` parameter may
   be const or volatile, and a `volatile int` is an int. */
template <typename T>
struct remove_cvref {
    typedef T type;
};
template <typename T>
struct remove_cvref<T &> : remove_cvref<T> {};
template <typename T>
struct remove_cvref<T &&> : remove_cvref<T> {};
template <typename T>
struct remove_cvref<const T> : remove_cvref<T> {};
template <typename T>
struct remove_cvref<volatile T> : remove_cvref<T> {};
template <typename T>
struct remove_cvref<const volatile T> : remove_cvref<T> {};
template <typename T>
using bare = typename remove_cvref<T>::type;

/* A class or union: a trait, as GCC mangles no built-in in a signature. */
template <typename T>
struct is_class : constant<__is_class(bare<T>) || __is_union(bare<T>)> {};

/* A pointer, an array or nullptr: what converts to an address. */
template <typename T>
struct is_address : false_type {};
template <typename T>
struct is_address<T *> : true_type {};
template <typename T, unsigned long N>
struct is_address<T[N]> : true_type {};
template <typename T>
struct is_address<T[]> : true_type {};
template <>
struct is_address<decltype(nullptr)> : true_type {};

/* A probe macro's argument in C++ (usdt/usdt_site.h says how a macro checks and converts one):
   the check refuses what the C++ API refuses and a cast would take silently: an
      integer (other than a null pointer constant) for a string or pointer, a pointer, array,
      nullptr or class object for an integer; and, for a bool, what the cast refuses. A
      static_assert says what the argument takes and names its index. The conversion is a
      function, so that the caller's code holds no old-style cast (-Wold-style-cast) or cast to
      the same type (-Wuseless-cast); what the check refused it does not convert (no second
      error).
   _USDT_CAST is the cast alone, for the header's own conversions. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
/* A string's address passes through `void const volatile *` and back to `char const *`: the
   volatile is the conversion's, not the argument's. */
#pragma GCC diagnostic ignored "-Wcast-qual"
template <typename To, typename From>
#if defined(__GNUC__)
__attribute__((always_inline)) /* no call per argument at -O0 */
#endif
constexpr To cast(From value) noexcept {
    return (To)value;
}

/* What an integer argument's macro takes: an integer, bool, enum or floating-point value, as the
   cast to the declared type takes; not an address or a class object. */
template <typename T>
struct is_number : constant<!is_address<bare<T>>::value && !is_class<T>::value> {};
/* What a string or pointer argument's macro takes: what a parameter of type `void const volatile *`
   takes, an object pointer, an array, nullptr or a null pointer constant (0, NULL). Overload
   resolution decides, not the expression's type: only it tells `0` from an int variable. */
char takes_address(void const volatile *) noexcept;
struct not_an_address {
    char bytes[2];
};
not_an_address takes_address(...) noexcept;
/* Whether a cast converts a value of type From (a reference type) to To: std::atomic<int> to int,
   std::unique_ptr to bool. Asked of class objects only: of a scalar, the cast's own warnings
   (-Wint-to-pointer-cast) would be the caller's. */
template <typename From, typename To, bool Asked = is_class<From>::value || is_same<To, bool>::value, typename = To>
struct casts : false_type {};
template <typename From, typename To>
struct casts<From, To, true, decltype((To)declval<From>())> : true_type {};

/* The conversion of a probe macro's argument, after its check: the cast, but for what the check
   refused, which converts to To(), with no second error. For a string or pointer, a parameter of
   type `void const volatile *` takes what the check accepted, null pointer constants (0, NULL)
   included, without the warnings a template parameter of their integer type draws; anything
   else, through `...`, is what the check refused. A class object is taken by reference (std::atomic
   is not copied), a scalar by value (a const reference binds no volatile bit-field). */
template <typename To>
#if defined(__GNUC__)
__attribute__((always_inline)) /* no call per argument at -O0 */
#endif
constexpr typename enable_if<is_address<To>::value, To>::type argument(void const volatile *address) noexcept {
    return (To)address;
}
template <typename To>
/* NOLINTNEXTLINE(cert-dcl50-cpp): `...` ranks below a null pointer constant's conversion */
constexpr typename enable_if<is_address<To>::value, To>::type argument(...) noexcept {
    return To();
}
template <typename To, typename From>
constexpr typename enable_if<is_address<To>::value && is_class<From>::value
                                 && sizeof(takes_address(declval<const From &>())) != 1,
                             To>::type
argument(const From &) noexcept {
    return To();
}
template <bool Cast>
struct number_conversion { /* the cast; an address for an integer converts to To() */
    template <typename To, typename From>
#if defined(__GNUC__)
    __attribute__((always_inline))
#endif
    static constexpr To convert(From value) noexcept {
        return (To)value;
    }
};
template <>
struct number_conversion<false> {
    template <typename To, typename From>
    static constexpr To convert(From) noexcept {
        return To();
    }
};
template <typename To, typename From>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
constexpr typename enable_if<!is_address<To>::value && !is_class<From>::value, To>::type argument(From value) noexcept {
    return number_conversion<!is_address<From>::value || is_same<To, bool>::value>::template convert<To>(value);
}
template <typename To, typename From>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
constexpr typename enable_if<!is_address<To>::value && is_class<From>::value && casts<const From &, To>::value, To>::type
argument(const From &value) noexcept {
    return (To)value;
}
template <typename To, typename From>
constexpr typename enable_if<!is_address<To>::value && is_class<From>::value && !casts<const From &, To>::value, To>::type
argument(const From &) noexcept {
    return To();
}
#pragma GCC diagnostic pop
} /* namespace detail */
} /* namespace usdt */

#define _USDT_CAST(type, value) ::usdt::detail::cast<type>(value)
#define _USDT_CONVERTED(member, type, value) ::usdt::detail::argument<type>(value)
/* A static_assert in the macro itself, not in a template, fires at every wrong call, not only at
   the first of each type. */
#define _USDT_CHECK_INTEGER(index, type, expression) \
    static_assert(::usdt::detail::is_number<decltype((expression))>::value, \
                  "usdt: argument " #index " of this probe is an integer: it takes an integer, bool, enum or " \
                  "floating-point value; not a pointer, array, nullptr or class object");
#define _USDT_CHECK_BOOL(index, type, expression) \
    static_assert(::usdt::detail::casts<decltype((expression)), bool>::value, \
                  "usdt: argument " #index " of this probe is a bool: it takes what converts to bool");
#define _USDT_CHECK_STRING(index, type, expression) \
    static_assert(sizeof(::usdt::detail::takes_address(expression)) == 1, \
                  "usdt: argument " #index " of this probe is a string: it takes a C string (a pointer, an array) " \
                  "or nullptr; not an integer");
#define _USDT_CHECK_POINTER(index, type, expression) \
    static_assert(sizeof(::usdt::detail::takes_address(expression)) == 1, \
                  "usdt: argument " #index " of this probe is a pointer: it takes an object pointer, an array or " \
                  "nullptr; not an integer");

/* A string or pointer argument of a probe macro converted and held in a local first, as its site
   names it twice: as a value and in _USDT_POINTED_TO(). */
#define _USDT_ADDRESS_ARG(name, type, value) type const name = _USDT_CONVERTED(address, type, value);

#endif /* USDT_USDT_CXX_H */
