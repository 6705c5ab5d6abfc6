// Help > About: what Ferry is and the versions a bug report needs.
#pragma once

#include <QDialog>

namespace ferry::ui {

// Help > About: what Ferry is, and the versions a bug report needs (Ferry, Qt at build and
// run time, the libtorch the trainer was built with, the system), with a button to copy them.
class AboutDialog : public QDialog {
    Q_OBJECT
public:
    explicit AboutDialog(QWidget *parent = nullptr);

    // "Ferry 0.1.0\nQt 6.4.2 (built with 6.4.2)\nlibtorch 1.13.0\nDebian GNU/Linux 12 (bookworm)"
    static QString versions();
};

} // namespace ferry::ui
