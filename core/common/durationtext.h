// A duration as Ferry shows it to people: "2h 05m", "3m 07s", "12s", "0.4s".
#pragma once

#include <QString>

namespace ferry {

// "2h 05m", "3m 07s", "12s"; under a second, what it took ("0.4s", "80ms"), so a short run is not "0s".
QString durationText(qint64 ms);

} // namespace ferry
