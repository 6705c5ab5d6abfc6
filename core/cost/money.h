// Money as Ferry shows and writes it: amounts in the catalog's currency (US dollars).
#pragma once

#include <QString>

namespace ferry::cost {

// Every amount Ferry shows is in the price catalog's currency.
inline constexpr QLatin1StringView kCurrency{"USD"};

// "12.34 USD"; an amount under a cent that is not 0 shows its first significant digits
// ("0.0042 USD"), so that a small cost never reads as nothing.
QString moneyText(double amount);
// The amount as a machine reads it (CSV, JSON text): up to 6 decimals, no trailing zeros ("3.6").
QString plainAmount(double amount);

} // namespace ferry::cost
