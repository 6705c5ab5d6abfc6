#include "cost/money.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::cost {

QString moneyText(double amount)
{
    const double magnitude = std::fabs(amount);
    // Under a cent: two significant digits (at most 8 decimals).
    const int decimals =
        magnitude > 0 && magnitude < 0.01 ? std::min(8, int(std::ceil(-std::log10(magnitude))) + 1) : 2;
    const QString number = QString::number(amount, 'f', decimals);
    return number + u' ' + kCurrency;
}

QString priceText(double amount)
{
    QString number = QString::number(amount, 'f', 5);
    while (number.endsWith(u'0') && number.indexOf(u'.') < number.size() - 3)
        number.chop(1);
    return number + u' ' + kCurrency;
}

QString plainAmount(double amount)
{
    QString text = QString::number(amount, 'f', 6);
    while (text.endsWith(u'0'))
        text.chop(1);
    if (text.endsWith(u'.'))
        text.chop(1);
    return text == u"-0"_s ? u"0"_s : text;
}

} // namespace ferry::cost
