// Money as Ferry shows and writes it: amounts in the catalog's currency (US dollars).
#pragma once

#include <QString>

namespace ferry::cost {

// Every amount Ferry shows is in the price catalog's currency.
inline constexpr QLatin1StringView kCurrency{"USD"};

// "12.34 USD"; an amount under a cent that is not 0 shows its first significant digits
// ("0.0042 USD"), so that a small cost never reads as nothing.
QString moneyText(double amount);
// A price an hour as catalogs write them: at least 2 decimals, up to 5 ("3.60 USD", "1.006 USD",
// "40.96575 USD"), so a rate taken from the catalog shows as the catalog has it.
QString priceText(double amount);
// The amount as a machine reads it (CSV, JSON text): up to 6 decimals, no trailing zeros ("3.6").
QString plainAmount(double amount);

} // namespace ferry::cost
