// Error: a problem the user can act on (what, where, what to do), plus helpers for errno text and
// control characters.
#pragma once

#include <QString>

#include <cerrno>
#include <utility>
#include <variant>

namespace ferry {

// A problem the user can act on: what went wrong, where (file, line, column when known),
// and what to do about it. Core returns these as values; the front ends print or show them.
struct Error {
    QString message;
    QString path;
    int line = 0;
    int column = 0;
    QString hint;

    // "path:line:column: message" (parts that are unknown are left out), then the hint.
    QString toString() const;
};

// The same error with what was being done in front of its message ("Train: " + the reason,
// "run r7: cannot store metrics: " + SQLite's words); where it happened and the hint stay.
Error withContext(const QString &context, Error error);

// The system's words for an errno value ("No such file or directory"), for an Error's message.
QString errnoText(int code = errno);

// A character a terminal or a file name acts on, or that makes a shown name differ from the real
// one: C0, DEL, C1, and format characters (bidirectional marks, zero-width).
bool isControlCharacter(QChar c);
// "U+001B": a character as a message names it.
QString codePoint(QChar c);

// A name from elsewhere (an archive's entry, a folder listing's name) as a message quotes it:
// control and format characters written \uXXXX, at most 200 characters ("..." after them).
QString quotedName(QStringView name);

// The value or the reason there is none (std::expected arrives with C++23).
template <typename T> class Expected {
public:
    Expected(T value) : m_state(std::move(value)) {}
    Expected(Error error) : m_state(std::move(error)) {}

    bool hasValue() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return hasValue(); }

    T &value() { return std::get<T>(m_state); }
    const T &value() const { return std::get<T>(m_state); }
    T &operator*() { return value(); }
    const T &operator*() const { return value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    const Error &error() const { return std::get<Error>(m_state); }

private:
    std::variant<T, Error> m_state;
};

// Success, or the reason it failed: what a function that has nothing to return gives back.
// `return {};` is success; `if (!result) show(result.error());`.
template <> class Expected<void> {
public:
    Expected() = default;
    Expected(Error error) : m_error(std::move(error)), m_failed(true) {}

    bool hasValue() const { return !m_failed; }
    explicit operator bool() const { return hasValue(); }

    const Error &error() const { return m_error; }

private:
    Error m_error;
    bool m_failed = false;
};

} // namespace ferry
