// Converts lists of numbers or strings to JSON arrays and back.
#pragma once

#include <QJsonArray>
#include <QJsonValue>
#include <QString>

#include <type_traits>

namespace ferry {

// A list of numbers or strings as a JSON array, and back: [256, 128], ["cat", "dog"]. What is
// not of the element's kind in the array reads as its default (0, "").
template <typename Range> QJsonArray toJsonArray(const Range &values)
{
    QJsonArray array;
    for (const auto &v : values) {
        if constexpr (std::is_floating_point_v<std::decay_t<decltype(v)>>)
            array.append(static_cast<double>(v));
        else
            array.append(v);
    }
    return array;
}

template <typename Container> Container fromJsonArray(const QJsonValue &value)
{
    using Element = typename Container::value_type;
    Container out;
    for (const QJsonValue &v : value.toArray()) {
        if constexpr (std::is_same_v<Element, QString>)
            out.push_back(v.toString());
        else if constexpr (std::is_floating_point_v<Element>)
            out.push_back(static_cast<Element>(v.toDouble()));
        else
            out.push_back(static_cast<Element>(v.toInteger()));
    }
    return out;
}

} // namespace ferry
