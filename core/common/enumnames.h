// Tables of an enum's values and their names, with lookups in both directions, so each name is
// written once.
#pragma once

// An enum's names in a file or a table, kept as one table of (value, name) pairs: each value's
// name and each name's value looked up in it (a run's and a sweep's statuses).
#include <QString>
#include <QStringView>

#include <array>
#include <cstddef>
#include <optional>
#include <utility>

namespace ferry {

template <typename E, std::size_t N> using EnumNames = std::array<std::pair<E, QStringView>, N>;

// The name of `value`; empty when the table has none.
template <typename E, std::size_t N> QString enumName(const EnumNames<E, N> &table, E value)
{
    for (const auto &[v, name] : table) {
        if (v == value)
            return name.toString();
    }
    return {};
}

// The value named `name`, exactly; nullopt when none is.
template <typename E, std::size_t N> std::optional<E> enumValue(const EnumNames<E, N> &table, QStringView name)
{
    for (const auto &[v, n] : table) {
        if (n == name)
            return v;
    }
    return std::nullopt;
}

} // namespace ferry
