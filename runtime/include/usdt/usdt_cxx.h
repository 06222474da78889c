/*
 * usdt/usdt_cxx.h: the C++ half of usdt's runtime, for C++ translation units only. It builds
 * on usdt/usdt.h (the probe site, whose comment says what a site is); a generated header
 * carries it after that file, for C++ only. Two jobs, both about arguments:
 *
 *  - The probe macros' argument checks and conversions in C++ (usdt/usdt.h has C's).
 *  - The typed C++ API's argument types, usdt::integer_argument<T, N> and its siblings, which
 *    a generated probe function takes as parameters (left out with USDT_NO_CXX_API).
 *
 * Both re-implement the few type traits they need (enable_if, declval, is_convertible...)
 * rather than include <type_traits>, which alone costs a translation unit more to compile
 * than all of them. Names carry a `_USDT_` or `_usdt_` prefix, or are in namespace usdt; the
 * spelling rule of usdt/usdt.h's comment (`char const *`) holds here too.
 */
#ifndef USDT_USDT_CXX_H
#define USDT_USDT_CXX_H

#if !defined(__cplusplus)
#error "usdt/usdt_cxx.h is C++; C code includes usdt/usdt.h"
#endif
#if !defined(USDT_USDT_H) /* a generated header carries usdt/usdt.h before this file */
#include "usdt.h"
#endif

/* A probe macro's argument in C++ (usdt/usdt.h says how a macro checks and converts one):
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

/* A string or pointer argument of a probe macro, converted and held in a local first, as its
   site names it twice: as a value and in _USDT_POINTED_TO(). */
#define _USDT_ADDRESS_ARG(name, type, value) type const name = _USDT_CONVERTED(address, type, value);

#if !defined(USDT_NO_CXX_API)

/* How the generated C++ API's functions are declared. With internal linkage (`static`): their
   bodies differ with the settings of the translation unit (USDT_DISABLE, USDT_X86_NOP5, a
   header generated with or without semaphores), and one inline function with two definitions
   in one program would be an ODR violation that the linker resolves silently, keeping one
   copy for all: a call through a pointer to `provider::probe` from a USDT_DISABLE unit
   would fire the probe, or one from a traced unit not. Each unit keeps its own. */
#if defined(__GNUC__)
#define _USDT_API_FUNCTION static inline __attribute__((always_inline))
#define _USDT_API_INLINE inline __attribute__((always_inline))
#else
#define _USDT_API_FUNCTION static inline
#define _USDT_API_INLINE inline
#endif

/*
 * The C++ API's argument types. A generated probe function is a plain inline function whose
 * parameters are of these types, one class template per kind of argument that every probe
 * shares: a header of a thousand probes declares a thousand small functions and
 * instantiates a few classes. An argument is checked where it converts to its parameter,
 * in the user's call: what an argument of its kind takes has a constructor; anything else
 * picks the constructor whose static_assert says what it takes, and the compiler's "in
 * instantiation of" line names the class, so the declared type, and ArgumentIndex, the
 * argument's place (from 0, as tracers number them).
 *
 * A string argument that must be copied (a view, which need not end in a NUL) or formatted
 * (usdt_format()) is costly: it is prepared, into a usdt::string_buffer of the probe
 * function, only while a tracer is attached.
 */
namespace usdt {
namespace detail {

/* The few type traits the argument types need, without <type_traits>, which alone costs a
   translation unit more to compile than all of them. */
template <bool Value>
struct constant {
    static constexpr bool value = Value;
};
using true_type = constant<true>;
using false_type = constant<false>;

/* `template <typename T, when<condition> = 0>`: a constructor taken only when the condition holds. */
template <bool Condition>
using when = typename ::_usdt_enable_if<Condition>::type;

template <typename T, typename U>
struct is_same : false_type {};
template <typename T>
struct is_same<T, T> : true_type {};

template <typename To>
void convert_to(To) noexcept;
template <typename From, typename To, typename = void>
struct is_convertible : false_type {};
template <typename From, typename To>
struct is_convertible<From, To, decltype(convert_to<To>(::_usdt_declval<From>()))> : true_type {};

/* The standard integer and character types; not the 128-bit extensions, wider than any
   declared type. */
template <typename T>
struct is_integer : false_type {};
#define _USDT_INTEGER(type) \
    template <> \
    struct is_integer<type> : true_type {};
_USDT_INTEGER(bool)
_USDT_INTEGER(char)
_USDT_INTEGER(signed char)
_USDT_INTEGER(unsigned char)
_USDT_INTEGER(wchar_t)
_USDT_INTEGER(char16_t)
_USDT_INTEGER(char32_t)
#if defined(__cpp_char8_t)
_USDT_INTEGER(char8_t)
#endif
_USDT_INTEGER(short)
_USDT_INTEGER(unsigned short)
_USDT_INTEGER(int)
_USDT_INTEGER(unsigned int)
_USDT_INTEGER(long)
_USDT_INTEGER(unsigned long)
_USDT_INTEGER(long long)
_USDT_INTEGER(unsigned long long)
#undef _USDT_INTEGER

template <typename T>
struct always_false : false_type {};

/* The argument types' constructors deduce T from a `const T &` parameter too, so T may be
   const or volatile: every trait below looks at the type without them (a `volatile int` is an
   int). */
template <typename T>
using bare = typename ::_usdt_bare<T>::type;

/* Integers, bools and enums, scoped or not, no wider than the declared type, as a function
   taking the declared type would take them without narrowing. */
template <typename T, typename Declared>
struct fits : constant<(is_integer<bare<T>>::value || __is_enum(bare<T>)) && sizeof(T) <= sizeof(Declared)> {};

/* From C++20 on, an integer wider than the declared type may be a constant that fits it:
   the consteval constructor decides. C++20 is any standard after C++17: GCC 10's -std=c++20
   says 201709L, and has consteval. */
#if __cplusplus > 201703L
#define _USDT_CONSTEVAL_CONSTANTS 1
#else
#define _USDT_CONSTEVAL_CONSTANTS 0
#endif
template <typename T>
struct constant_checked : constant<_USDT_CONSTEVAL_CONSTANTS && is_integer<bare<T>>::value> {};

/* Class types, std::atomic included: refused by integer and bool arguments. */
template <typename T>
struct is_class : constant<::_usdt_is_class<T>::value> {};

#if _USDT_CONSTEVAL_CONSTANTS
/* Named for the message: a constant too large for the declared type calls it, which a
   constant expression cannot. */
inline void integer_constant_does_not_fit_the_declared_type() noexcept {}
#endif

template <typename T, typename = void>
struct has_c_str : false_type {};
template <typename T>
struct has_c_str<T, decltype(void(static_cast<char const *>(::_usdt_declval<const T &>().c_str())))>
    : true_type {};

template <typename T, typename = void>
struct has_data_and_size : false_type {};
template <typename T>
struct has_data_and_size<T, decltype(void(static_cast<char const *>(::_usdt_declval<const T &>().data())),
                                     void(::_usdt_declval<const T &>().size()))> : true_type {};

/* The customization point: `usdt_format(const T &)`, found by argument-dependent lookup,
   returns an object with c_str() (a std::string of JSON, say) for a string argument. */
template <typename T, typename = void>
struct has_usdt_format : false_type {};
template <typename T>
struct has_usdt_format<T, decltype(void(static_cast<char const *>(usdt_format(::_usdt_declval<const T &>()).c_str())))>
    : true_type {};

template <typename T>
struct is_view : constant<!has_c_str<T>::value && has_data_and_size<T>::value> {};
template <typename T>
struct is_formatted
    : constant<!has_c_str<T>::value && !has_data_and_size<T>::value && has_usdt_format<T>::value> {};
template <typename T>
struct is_string : constant<is_convertible<const T &, char const *>::value || has_c_str<T>::value
                                                    || has_data_and_size<T>::value || has_usdt_format<T>::value> {};

} /* namespace detail */

/* Where a costly string argument is prepared, a local of the probe function: its first
   `capacity` bytes and a NUL, as tracers read at most a few hundred bytes of a string anyway.
   Not a member of string_argument, whose address would then reach the function that prepares
   it, and Clang would keep the whole argument in memory, at a cost to every untraced call. */
struct string_buffer {
    static constexpr unsigned long capacity = 255;
    char bytes[capacity + 1];
};

namespace detail {
_USDT_API_INLINE char const *copy(char const *data, unsigned long size, string_buffer &buffer) noexcept {
    const unsigned long length = size < string_buffer::capacity ? size : string_buffer::capacity;
    for (unsigned long i = 0; i < length; ++i) {
        buffer.bytes[i] = data[i];
    }
    buffer.bytes[length] = '\0';
    return buffer.bytes;
}

template <typename View>
char const *copy_view(void const *view, string_buffer &buffer) {
    const View &text = *static_cast<const View *>(view);
    return copy(text.data(), static_cast<unsigned long>(text.size()), buffer);
}

template <typename T>
char const *format(void const *object, string_buffer &buffer) {
    const auto formatted = usdt_format(*static_cast<const T *>(object));
    char const *text = formatted.c_str();
    unsigned long size = 0;
    while (size < string_buffer::capacity && text[size] != '\0') {
        ++size;
    }
    return copy(text, size, buffer);
}
} /* namespace detail */

/* Each argument type holds its value, converted to the declared type, as `value`. */
template <typename Declared, int ArgumentIndex>
class integer_argument {
  public:
    template <typename T, detail::when<detail::fits<T, Declared>::value> = 0>
    _USDT_API_INLINE constexpr integer_argument(T number) noexcept : value(static_cast<Declared>(number)) {}

#if _USDT_CONSTEVAL_CONSTANTS
    /* An integer constant that fits, as a function taking Declared takes `200` for a uint8_t. */
    template <typename T, detail::when<detail::is_integer<T>::value && !detail::fits<T, Declared>::value> = 0>
    consteval integer_argument(T constant) noexcept : value(static_cast<Declared>(constant)) {
        if (static_cast<T>(value) != constant || (constant < T(0)) != (value < Declared(0))) {
            detail::integer_constant_does_not_fit_the_declared_type();
        }
    }
#endif

    /* Before C++20, an integer wider than the declared type, constant or not. */
    template <typename T, detail::when<!detail::fits<T, Declared>::value && detail::is_integer<detail::bare<T>>::value
                                       && !detail::constant_checked<T>::value> = 0>
    integer_argument(T) noexcept : value() { /* by value: a const reference binds no volatile bit-field */
        static_assert(detail::always_false<T>::value,
                      "usdt: an integer argument takes an integer or enum no wider than its declared type; "
                      "convert other values explicitly (before C++20, int constants too: uint8_t{200})");
    }

    template <typename T, detail::when<!detail::fits<T, Declared>::value && !detail::is_integer<detail::bare<T>>::value> = 0>
    integer_argument(const T &) noexcept : value() {
        static_assert(detail::always_false<T>::value,
                      "usdt: an integer argument takes an integer or enum no wider than its declared type; "
                      "convert other values explicitly (a std::atomic with .load())");
    }

    Declared value;
};

template <int ArgumentIndex>
class bool_argument {
  public:
    _USDT_API_INLINE constexpr bool_argument(bool flag) noexcept : value(flag) {}

    /* Anything else: a scalar by value (a const reference binds no volatile bit-field), a class
       object by reference. */
    template <typename T, detail::when<!detail::is_same<T, bool>::value && !detail::is_class<T>::value> = 0>
    bool_argument(T) noexcept : value() {
        static_assert(detail::always_false<T>::value, "usdt: a bool argument takes a bool");
    }

    template <typename T, detail::when<detail::is_class<T>::value> = 0>
    bool_argument(const T &) noexcept : value() {
        static_assert(detail::always_false<T>::value, "usdt: a bool argument takes a bool");
    }

    bool value;
};

/* Object pointers of any type, and nullptr: the probe records the address. */
template <int ArgumentIndex>
class pointer_argument {
  public:
    /* `void const volatile *`, so that pointers to volatile objects convert too. */
    _USDT_API_INLINE constexpr pointer_argument(void const volatile *address) noexcept
        : value(const_cast<void const *>(address)) {}

    /* Anything else but class objects: through `...`, which overload resolution ranks below the
       conversion of a null pointer constant (0, NULL) to a pointer, as a function taking a
       pointer takes them. */
    template <int Index = ArgumentIndex>
    pointer_argument(...) noexcept : value() { /* NOLINT(cert-dcl50-cpp): see above */
        static_assert(Index < 0, "usdt: a pointer argument takes an object pointer or nullptr (smart pointers: pass .get())");
    }

    template <typename T, detail::when<detail::is_class<T>::value
                                       && !detail::is_convertible<const T &, void const volatile *>::value> = 0>
    pointer_argument(const T &) noexcept : value() {
        static_assert(detail::always_false<T>::value,
                      "usdt: a pointer argument takes an object pointer or nullptr (smart pointers: pass .get())");
    }

    void const *value;
};

/* C strings and nullptr, anything with c_str() (std::string), views with data() and size()
   (std::string_view), and types with usdt_format(). A view or formatted object is referred
   to, not copied, until the probe's site asks for the text: it lives until the end of the
   call. */
template <int ArgumentIndex>
class string_argument {
  public:
    _USDT_API_INLINE constexpr string_argument(char const *text) noexcept : text_(text) {}

    template <typename T, detail::when<detail::has_c_str<T>::value> = 0>
    _USDT_API_INLINE string_argument(const T &text) : text_(text.c_str()) {}

    template <typename T, detail::when<detail::is_view<T>::value> = 0>
    _USDT_API_INLINE string_argument(const T &view) noexcept
        : object_(__builtin_addressof(view)), prepare_(&detail::copy_view<T>) {}

    template <typename T, detail::when<detail::is_formatted<T>::value> = 0>
    _USDT_API_INLINE string_argument(const T &object) noexcept
        : object_(__builtin_addressof(object)), prepare_(&detail::format<T>) {}

    /* Anything else but class objects: through `...`, which overload resolution ranks below the
       conversion of a null pointer constant (0, NULL) to `char const *`, as a function taking
       `char const *` takes them. */
    template <int Index = ArgumentIndex>
    string_argument(...) noexcept { /* NOLINT(cert-dcl50-cpp): see above */
        static_assert(Index < 0, "usdt: a string argument takes a C string, std::string, std::string_view, nullptr, "
                                 "or a type with usdt_format()");
    }

    template <typename T, detail::when<detail::is_class<T>::value && !detail::is_string<T>::value> = 0>
    string_argument(const T &) noexcept {
        static_assert(detail::always_false<T>::value,
                      "usdt: a string argument takes a C string, std::string, std::string_view, nullptr, "
                      "or a type with usdt_format()");
    }

    /* The text the site records. A costly string (a view, a usdt_format() type) is prepared,
       into `buffer`, only while the probe is traced: the generated function asks costly() first
       and then the probe's own is-enabled check, as its _ENABLED() macro spells it, so that
       for any other string (costly() folds to false) no check is left. Untraced, the site
       records nullptr, which nobody reads. */
    _USDT_API_INLINE bool costly() const noexcept {
        return prepare_ != nullptr;
    }
    _USDT_API_INLINE char const *prepared(string_buffer &buffer, bool traced) const {
        return traced ? prepare_(object_, buffer) : nullptr;
    }
    _USDT_API_INLINE constexpr char const *text() const noexcept {
        return text_;
    }

  private:
    char const *text_ = nullptr;
    void const *object_ = nullptr;
    char const *(*prepare_)(void const *, string_buffer &) = nullptr;
};

} /* namespace usdt */
#endif /* !USDT_NO_CXX_API */

#endif /* USDT_USDT_CXX_H */
