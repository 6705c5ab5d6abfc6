// Setting<T>: a typed QSettings entry declared once, next to the feature that owns it, with its key
// and default.
#pragma once

#include <QSettings>
#include <QString>
#include <QVariant>

namespace ferry {

// A typed QSettings entry, declared once next to the feature that owns it, e.g.
//   const Setting<QByteArray> kGeometry{"mainWindow/geometry"};
// so no string key is repeated across files and every read has its type and default.
template <typename T> class Setting {
public:
    explicit Setting(const char *key, T defaultValue = T()) : m_key(key), m_default(std::move(defaultValue)) {}

    QString key() const { return QString::fromLatin1(m_key); }

    T get(const QSettings &settings) const
    {
        QVariant v = settings.value(key());
        // INI files hand back strings: convert, and fall back when the text is not a T.
        if (!v.isValid() || !v.convert(QMetaType::fromType<T>()))
            return m_default;
        return v.value<T>();
    }
    void set(QSettings &settings, const T &value) const { settings.setValue(key(), QVariant::fromValue(value)); }
    void reset(QSettings &settings) const { settings.remove(key()); }

private:
    const char *m_key;
    T m_default;
};

} // namespace ferry
