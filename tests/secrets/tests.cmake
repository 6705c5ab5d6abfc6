# Secrets: the redaction filter, and the keychain through a real gnome-keyring in a private D-Bus
# session (tests/services/keyring.sh; each keychain test re-runs itself inside one), no mocks.
ferry_test(tst_redactor SOURCES secrets/tst_redactor.cpp)
ferry_test(tst_streamredactor SOURCES secrets/tst_streamredactor.cpp)
ferry_test(tst_redactedfollower SOURCES secrets/tst_redactedfollower.cpp)
foreach(name tst_secretstore tst_secretcli tst_secretrun tst_kernelsecret)
  ferry_test(${name} SOURCES secrets/${name}.cpp)
endforeach()
# A kernel's secrets on this machine and in a container (the docker fixture).
set_tests_properties(tst_kernelsecret PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds)
if(FERRY_GUI)
  ferry_test(tst_secretspage GUI SOURCES secrets/tst_secretspage.cpp LIBS ferry_ui)
  # The launch dialog's secret variables, and the run monitor redacting with the window's keychain.
  ferry_test(tst_launchsecrets GUI SOURCES secrets/tst_launchsecrets.cpp LIBS ferry_ui)
  # The settings dialog and what it changes in the window, secrets included.
  ferry_test(tst_preferences GUI SOURCES secrets/tst_preferences.cpp LIBS ferry_ui)
endif()

# The canary sweep (issue 9): a canary secret through local, container, SSH (host Python and
# image) and Slurm runs, the registry login and `ferry secret`, then searched for everywhere
# Ferry writes or shows: 0 hits. Its fixtures: tests/env/devcontainer.cmake (docker),
# tests/targets/tests.cmake (registry, sshd, slurm).
if(FERRY_GUI)
  ferry_test(tst_secretsweep SOURCES secrets/tst_secretsweep.cpp)
  set_tests_properties(tst_secretsweep PROPERTIES FIXTURES_REQUIRED "docker;registry;sshd;slurm"
                                                  RESOURCE_LOCK container_builds TIMEOUT 1200)
endif()
