/*
 * usdt/usdt_cxx_api.h: the typed C++ API's argument types, usdt::integer_argument<T, N> and
 * its siblings, which a generated probe function takes as parameters (left out with
 * USDT_NO_CXX_API). C++ only; it builds on usdt/usdt_cxx.h and its type traits, and a
 * generated header carries it after that file. Names are in namespace usdt or carry a `_USDT_`
 * prefix; the spelling rule of usdt/usdt.h's comment (`char const *`) holds here too.
 */
#ifndef USDT_USDT_CXX_API_H
#define USDT_USDT_CXX_API_H

#if !defined(USDT_USDT_CXX_H) /* a generated header carries usdt/usdt_cxx.h before this file */
#include "usdt_cxx.h"
#endif

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

/* More traits, for the argument types only, on those of usdt/usdt_cxx.h. */
template <typename To>
void convert_to(To) noexcept;
template <typename From, typename To, typename = void>
struct is_convertible : false_type {};
template <typename From, typename To>
struct is_convertible<From, To, decltype(convert_to<To>(declval<From>()))> : true_type {};

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

#if _USDT_CONSTEVAL_CONSTANTS
/* Named for the message: a constant too large for the declared type calls it, which a
   constant expression cannot. */
inline void integer_constant_does_not_fit_the_declared_type() noexcept {}
#endif

template <typename T, typename = void>
struct has_c_str : false_type {};
template <typename T>
struct has_c_str<T, decltype(void(static_cast<char const *>(declval<const T &>().c_str())))>
    : true_type {};

template <typename T, typename = void>
struct has_data_and_size : false_type {};
template <typename T>
struct has_data_and_size<T, decltype(void(static_cast<char const *>(declval<const T &>().data())),
                                     void(declval<const T &>().size()))> : true_type {};

/* The customization point: `usdt_format(const T &)`, found by argument-dependent lookup,
   returns an object with c_str() (a std::string of JSON, say) for a string argument. */
template <typename T, typename = void>
struct has_usdt_format : false_type {};
template <typename T>
struct has_usdt_format<T, decltype(void(static_cast<char const *>(usdt_format(declval<const T &>()).c_str())))>
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

#endif /* USDT_USDT_CXX_API_H */
