/*
 * usdt/usdt_cxx.h: the probe macros' argument checks and conversions in C++, for C++
 * translation units only (usdt/usdt_site.h has C's, and says what a macro does with an
 * argument). It builds on usdt/usdt_site.h; a generated header carries it after that file, for
 * C++ only, then usdt/usdt_cxx_api.h, the typed C++ API's argument types.
 *
 * It re-implements the few type traits it needs (enable_if, declval...) rather than include
 * <type_traits>, which alone costs a translation unit more to compile than all of them. Names
 * carry a `_USDT_` or `_usdt_` prefix; the spelling rule of usdt/usdt.h's comment
 * (`char const *`) holds here too.
 */
#ifndef USDT_USDT_CXX_H
#define USDT_USDT_CXX_H

#if !defined(__cplusplus)
#error "usdt/usdt_cxx.h is C++; C code includes usdt/usdt.h"
#endif
#if !defined(USDT_USDT_SITE_H) /* a generated header carries usdt/usdt_site.h before this file */
#include "usdt_site.h"
#endif

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
constexpr To _usdt_converted(From value) noexcept {
    return (To)value;
}

/* What a probe macro's checks and conversions know of a type, without <type_traits>. */
template <typename T>
struct _usdt_bare { /* T without reference, const and volatile */
    typedef T type;
};
template <typename T>
struct _usdt_bare<T &> : _usdt_bare<T> {};
template <typename T>
struct _usdt_bare<T &&> : _usdt_bare<T> {};
template <typename T>
struct _usdt_bare<const T> : _usdt_bare<T> {};
template <typename T>
struct _usdt_bare<volatile T> : _usdt_bare<T> {};
template <typename T>
struct _usdt_bare<const volatile T> : _usdt_bare<T> {};
template <typename T>
struct _usdt_is_address { /* a pointer, an array or nullptr: what converts to an address */
    static constexpr bool value = false;
};
template <typename T>
struct _usdt_is_address<T *> {
    static constexpr bool value = true;
};
template <typename T, unsigned long N>
struct _usdt_is_address<T[N]> {
    static constexpr bool value = true;
};
template <typename T>
struct _usdt_is_address<T[]> {
    static constexpr bool value = true;
};
template <>
struct _usdt_is_address<decltype(nullptr)> {
    static constexpr bool value = true;
};
template <typename T>
struct _usdt_is_bool {
    static constexpr bool value = false;
};
template <>
struct _usdt_is_bool<bool> {
    static constexpr bool value = true;
};
template <typename T, typename Bare = typename _usdt_bare<T>::type>
struct _usdt_is_class { /* a class or union; a trait, as GCC mangles no built-in in a signature */
    static constexpr bool value = __is_class(Bare) || __is_union(Bare);
};
/* What an integer argument's macro takes: an integer, bool, enum or floating-point value, as the
   cast to the declared type takes; not an address or a class object. */
template <typename T, typename Bare = typename _usdt_bare<T>::type>
struct _usdt_is_number {
    static constexpr bool value = !_usdt_is_address<Bare>::value && !_usdt_is_class<Bare>::value;
};
/* What a string or pointer argument's macro takes: what a parameter of type `void const volatile *`
   takes, an object pointer, an array, nullptr or a null pointer constant (0, NULL). Overload
   resolution decides, not the expression's type: only it tells `0` from an int variable. */
char _usdt_takes_address(void const volatile *) noexcept;
struct _usdt_not_an_address {
    char bytes[2];
};
_usdt_not_an_address _usdt_takes_address(...) noexcept;

/* The conversion of a probe macro's argument, after its check: the cast, but for what the check
   refused, which converts to To(), with no second error. For a string or pointer, a parameter of
   type `void const volatile *` takes what the check accepted, null pointer constants (0, NULL)
   included, without the warnings a template parameter of their integer type draws; anything
   else, through `...`, is what the check refused. A class object is taken by reference (std::atomic
   is not copied), a scalar by value (a const reference binds no volatile bit-field). */
template <bool Condition, typename T = int>
struct _usdt_enable_if {};
template <typename T>
struct _usdt_enable_if<true, T> {
    typedef T type;
};
template <typename T>
T &&_usdt_declval() noexcept;
template <typename To>
#if defined(__GNUC__)
__attribute__((always_inline)) /* no call per argument at -O0 */
#endif
constexpr typename _usdt_enable_if<_usdt_is_address<To>::value, To>::type
_usdt_argument(void const volatile *address) noexcept {
    return (To)address;
}
template <typename To>
/* NOLINTNEXTLINE(cert-dcl50-cpp): `...` ranks below a null pointer constant's conversion */
constexpr typename _usdt_enable_if<_usdt_is_address<To>::value, To>::type _usdt_argument(...) noexcept {
    return To();
}
template <typename To, typename From>
constexpr typename _usdt_enable_if<_usdt_is_address<To>::value && _usdt_is_class<From>::value
                                       && sizeof(_usdt_takes_address(_usdt_declval<const From &>())) != 1,
                                   To>::type
_usdt_argument(const From &) noexcept {
    return To();
}
template <bool Cast>
struct _usdt_number_conversion { /* the cast; an address for an integer converts to To() */
    template <typename To, typename From>
#if defined(__GNUC__)
    __attribute__((always_inline))
#endif
    static constexpr To convert(From value) noexcept {
        return (To)value;
    }
};
template <>
struct _usdt_number_conversion<false> {
    template <typename To, typename From>
    static constexpr To convert(From) noexcept {
        return To();
    }
};
template <typename To, typename From>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
constexpr typename _usdt_enable_if<!_usdt_is_address<To>::value && !_usdt_is_class<From>::value, To>::type
_usdt_argument(From value) noexcept {
    return _usdt_number_conversion<!_usdt_is_address<From>::value || _usdt_is_bool<To>::value>::template convert<To>(
        value);
}
/* Whether a cast converts a value of type From (a reference type) to To: std::atomic<int> to int,
   std::unique_ptr to bool. Asked of class objects only: of a scalar, the cast's own warnings
   (-Wint-to-pointer-cast) would be the caller's. */
template <typename From, typename To, bool Asked = _usdt_is_class<From>::value || _usdt_is_bool<To>::value,
          typename = To>
struct _usdt_casts {
    static constexpr bool value = false;
};
template <typename From, typename To>
struct _usdt_casts<From, To, true, decltype((To)_usdt_declval<From>())> {
    static constexpr bool value = true;
};
template <typename To, typename From>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
constexpr typename _usdt_enable_if<!_usdt_is_address<To>::value && _usdt_is_class<From>::value
                                       && _usdt_casts<const From &, To>::value,
                                   To>::type
_usdt_argument(const From &value) noexcept {
    return (To)value;
}
template <typename To, typename From>
constexpr typename _usdt_enable_if<!_usdt_is_address<To>::value && _usdt_is_class<From>::value
                                       && !_usdt_casts<const From &, To>::value,
                                   To>::type
_usdt_argument(const From &) noexcept {
    return To();
}
#pragma GCC diagnostic pop
#define _USDT_CAST(type, value) ::_usdt_converted<type>(value)
#define _USDT_CONVERTED(member, type, value) ::_usdt_argument<type>(value)
/* A static_assert in the macro itself, not in a template, fires at every wrong call, not only at
   the first of each type. */
#define _USDT_CHECK_INTEGER(index, type, expression) \
    static_assert(::_usdt_is_number<decltype((expression))>::value, \
                  "usdt: argument " #index " of this probe is an integer: it takes an integer, bool, enum or " \
                  "floating-point value; not a pointer, array, nullptr or class object");
#define _USDT_CHECK_BOOL(index, type, expression) \
    static_assert(::_usdt_casts<decltype((expression)), bool>::value, \
                  "usdt: argument " #index " of this probe is a bool: it takes what converts to bool");
#define _USDT_CHECK_STRING(index, type, expression) \
    static_assert(sizeof(::_usdt_takes_address(expression)) == 1, \
                  "usdt: argument " #index " of this probe is a string: it takes a C string (a pointer, an array) " \
                  "or nullptr; not an integer");
#define _USDT_CHECK_POINTER(index, type, expression) \
    static_assert(sizeof(::_usdt_takes_address(expression)) == 1, \
                  "usdt: argument " #index " of this probe is a pointer: it takes an object pointer, an array or " \
                  "nullptr; not an integer");

/* A string or pointer argument of a probe macro, or of a C++ API function (whose value is of the
   declared type already), converted and held in a local first, as its site names it twice: as a
   value and in _USDT_POINTED_TO(). */
#define _USDT_ADDRESS_ARG(name, type, value) type const name = _USDT_CONVERTED(address, type, value);

#endif /* USDT_USDT_CXX_H */
