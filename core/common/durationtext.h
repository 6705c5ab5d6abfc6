// A duration as Ferry shows it to people: "2h 05m", "3m 07s", "12s", "0.4s".
#pragma once

#include <QString>

#include <optional>

namespace ferry {

// "2h 05m", "3m 07s", "12s"; under a second, what it took ("0.4s", "80ms"), so a short run is not "0s".
QString durationText(qint64 ms);

// A time limit as it is typed and shown ("0:00:05", "12:30:00"): H:MM:SS, hours unbounded.
QString clockText(qint64 seconds);
// "H:MM:SS", "M:SS" or plain seconds ("90"), each part a whole number, minutes and seconds
// under 60 after the first part; nullopt for anything else (a negative, a fraction, "1:75").
std::optional<qint64> parseClockText(const QString &text);

} // namespace ferry
