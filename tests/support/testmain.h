// The FERRY_TEST_*MAIN macros: a test file's Qt Test class registered in its folder's executable.
#pragma once

// Each folder of tests is one executable (tests/CMakeLists.txt, ferry_test): a test file ends with
// FERRY_TEST_MAIN, FERRY_TEST_GUILESS_MAIN or FERRY_TEST_APPLESS_MAIN where Qt's QTEST_MAIN,
// QTEST_GUILESS_MAIN or QTEST_APPLESS_MAIN would stand, and the executable's main()
// (support/testrunner.cpp) runs the test its first argument names: `tests_run tst_logtimes
// [testfunction ...]`, as the test's own program did. A test is named after its file (tst_x.cpp:
// tst_x, the CTest name).
#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <QTest>

#if defined(QT_WIDGETS_LIB)
#include <QApplication>
#elif defined(QT_GUI_LIB)
#include <QGuiApplication>
#endif

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace ferry::test {

// What Qt's macros put in main(): the application object, the test object, QTest::qExec.
using TestMainFunction = int (*)(int argc, char **argv);

// Every test of this executable, by name.
inline std::map<std::string, TestMainFunction> &registeredTests()
{
    static std::map<std::string, TestMainFunction> tests;
    return tests;
}

// A test's name: its file's, without folder and extension.
inline std::string testNameOf(const char *file)
{
    std::string name(file);
    name.erase(0, name.find_last_of("/\\") + 1);
    return name.substr(0, name.find('.'));
}

inline int registerTest(const char *file, TestMainFunction main)
{
    const std::string name = testNameOf(file);
    if (!registeredTests().emplace(name, main).second) {
        std::fprintf(stderr, "two tests named %s in one executable\n", name.c_str());
        std::abort();
    }
    return 0;
}

// The test this process runs (testrunner.cpp sets it).
inline QString &runningTestName()
{
    static QString name;
    return name;
}

// The arguments that start this test again in a new process of this executable
// (QCoreApplication::applicationFilePath()): its name first, then `arguments`.
inline QStringList testArguments(const QStringList &arguments = {})
{
    return QStringList{runningTestName()} + arguments;
}

} // namespace ferry::test

// `int function(int argc, char **argv)`, a static function of the test file, as its main(): for a
// test that does more than Qt's macros (a child mode, a setting before the application object).
#define FERRY_TEST_MAIN_FUNCTION(function)                                                                             \
    [[maybe_unused]] static const int ferryTestRegistered_##function = ferry::test::registerTest(__FILE__, function);

// What QTEST_MAIN_WRAPPER and QTEST_QAPP_SETUP do in Qt 6.4's qtest.h, in a function of its own.
#define FERRY_TEST_MAIN_WRAPPER(TestObject, ...)                                                                       \
    static int ferryTestMain_##TestObject(int argc, char *argv[])                                                      \
    {                                                                                                                  \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                                             \
        __VA_ARGS__                                                                                                    \
        TestObject tc;                                                                                                 \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return QTest::qExec(&tc, argc, argv);                                                                          \
    }                                                                                                                  \
    FERRY_TEST_MAIN_FUNCTION(ferryTestMain_##TestObject)
#define FERRY_TEST_APPLICATION(App)                                                                                    \
    App app(argc, argv);                                                                                               \
    app.setAttribute(Qt::AA_Use96Dpi, true);

// QTEST_MAIN: the application object of the most capable Qt module the test links.
#if defined(QT_WIDGETS_LIB)
#ifdef QT_KEYPAD_NAVIGATION
#define FERRY_TEST_MAIN_APPLICATION                                                                                    \
    FERRY_TEST_APPLICATION(QApplication) QApplication::setNavigationMode(Qt::NavigationModeNone);
#else
#define FERRY_TEST_MAIN_APPLICATION FERRY_TEST_APPLICATION(QApplication)
#endif
#elif defined(QT_GUI_LIB)
#define FERRY_TEST_MAIN_APPLICATION FERRY_TEST_APPLICATION(QGuiApplication)
#else
#define FERRY_TEST_MAIN_APPLICATION FERRY_TEST_APPLICATION(QCoreApplication)
#endif

#define FERRY_TEST_MAIN(TestObject) FERRY_TEST_MAIN_WRAPPER(TestObject, FERRY_TEST_MAIN_APPLICATION)
#define FERRY_TEST_GUILESS_MAIN(TestObject)                                                                            \
    FERRY_TEST_MAIN_WRAPPER(TestObject, FERRY_TEST_APPLICATION(QCoreApplication))
#define FERRY_TEST_APPLESS_MAIN(TestObject) FERRY_TEST_MAIN_WRAPPER(TestObject)
