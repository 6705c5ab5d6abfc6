# Security (issue 14, docs/security.md): one test per finding of the security review, each doing
# the attack against the real component and asserting it failed and nothing was lost.
ferry_test(tst_safefile SOURCES security/tst_safefile.cpp)
# Item 11: the fixtures take the Debian mirror from apt's configuration only.
add_test(NAME no_mirror_host COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/security/no-mirror-host.sh")
# L15: an environment's run arguments that undo the container's isolation (found, warned about).
ferry_test(tst_runarguments SOURCES security/tst_runarguments.cpp)
if(FERRY_GUI)
  ferry_test(tst_launchrunarguments GUI SOURCES security/tst_launchrunarguments.cpp LIBS ferry_ui)
endif()
# L12: a workspace on a network file system (sshfs over the test sshd) keeps a rollback journal.
if(FERRY_GUI)
  ferry_test(tst_networkstore SOURCES security/tst_networkstore.cpp LIBS Qt6::Sql)
  set_tests_properties(tst_networkstore PROPERTIES FIXTURES_REQUIRED sshd)
endif()
# L1: a login shell that is not POSIX (fish, a real user on the test sshd).
if(FERRY_GUI)
  ferry_test(tst_loginshell SOURCES security/tst_loginshell.cpp)
  set_tests_properties(tst_loginshell PROPERTIES FIXTURES_REQUIRED sshd)
endif()
# Crafted archives, environment files, notebooks and datasets (issue 14, items 2, 6, 7, 8):
# libarchive writes the archives and the idx.gz files exactly as an attacker would.
find_package(LibArchive 3.3 REQUIRED)
ferry_test(tst_predictarchive SOURCES security/tst_predictarchive.cpp LIBS LibArchive::LibArchive)
ferry_test(tst_yamlbomb SOURCES security/tst_yamlbomb.cpp)
if(FERRY_GUI)
  ferry_test(tst_yamlbombview GUI SOURCES security/tst_yamlbombview.cpp LIBS ferry_ui)
endif()
ferry_test(tst_notebookinjection SOURCES security/tst_notebookinjection.cpp)
ferry_test(tst_importname SOURCES security/tst_importname.cpp)
ferry_test(tst_memorybombs SOURCES security/tst_memorybombs.cpp LIBS LibArchive::LibArchive)
# M5, M6, N8 of the second review (issue 33): hostile metrics.csv, metric names and metric regexes
# through the real `ferry`, each at 100 times the review's size, timed and bounded.
ferry_test(tst_hostiletext SOURCES security/tst_hostiletext.cpp LIBS LibArchive::LibArchive)
set_tests_properties(tst_hostiletext PROPERTIES LABELS "security")
# L7: `ferry runs attach` prints a run's lines as the window shows them (terminal control sequences
# dropped), through the one rule in core/metrics/terminaltext.
ferry_test(tst_attachescapes SOURCES security/tst_attachescapes.cpp)
# M5, L13: two `ferry runs attach` processes and repeated `ferry runs list` calls on one live run
# store every point once.
ferry_test(tst_twofollowers SOURCES security/tst_twofollowers.cpp)
set_tests_properties(tst_twofollowers PROPERTIES TIMEOUT 600)
# L1 (review 2026-12-06): a run's model folder that would take hours to pack (a 1 TiB sparse file,
# 8 GiB of hard links) through the real `ferry run` and supervisor: bounded, and a cancel stops it.
ferry_test(tst_runpacking SOURCES security/tst_runpacking.cpp)
set_tests_properties(tst_runpacking PROPERTIES LABELS "security")
# L5: a model that takes seconds to pack after the exit record is still listed as an artifact.
ferry_test(tst_artifactrace SOURCES security/tst_artifactrace.cpp)
set_tests_properties(tst_artifactrace PROPERTIES TIMEOUT 600)
# M3: a multi-line secret (PEM key) from the real keychain, printed line by line, whole and split,
# redacted on every target: local, container (Docker fixture), SSH (sshd) and Slurm.
if(FERRY_GUI)
  ferry_test(tst_multilinesecret SOURCES security/tst_multilinesecret.cpp)
  set_tests_properties(tst_multilinesecret PROPERTIES FIXTURES_REQUIRED "docker;sshd;slurm"
                                                      RESOURCE_LOCK container_builds TIMEOUT 1200)
endif()

# H1, the run folder shared by every target: links planted by a run (the real local supervisor).
ferry_test(tst_runfolderlinks SOURCES security/tst_runfolderlinks.cpp)

# L11: crash leftovers swept at the next start of the real `ferry`.
ferry_test(tst_leftoversweep SOURCES security/tst_leftoversweep.cpp)

# H1 against the real Docker engine (the `docker` fixture, tests/env/devcontainer.cmake): a container run
# attacking the host, and the engine recorded per run. One at a time, with time for image builds.
if(FERRY_GUI)
  ferry_test(tst_containerescape SOURCES security/tst_containerescape.cpp)
  ferry_test(tst_containerengine SOURCES security/tst_containerengine.cpp)
  set_tests_properties(tst_containerescape tst_containerengine PROPERTIES FIXTURES_REQUIRED docker
                                                                          RESOURCE_LOCK container_builds TIMEOUT 1200)
endif()

# The remote host's side (review M1, M2, M10, L2, L6, L9, L10): against the real test sshd and
# Slurm of tests/targets/tests.cmake (its fixtures and folders), in the full build only.
if(FERRY_GUI)
  foreach(name tst_remotecancel tst_remotesecrets tst_remotedelete tst_remotehostoutput tst_rsyncquote
               tst_remotenames)
    ferry_test(${name} SOURCES security/${name}.cpp)
    # They share the sshd and the Slurm node with the remote tests (ferry_service_owner).
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "sshd;slurm" TIMEOUT 600
                         ENVIRONMENT_MODIFICATION "SLURM_CONF=set:${slurm_dir}/slurm.conf")
  endforeach()
endif()
if(FERRY_GUI)
  # The window's delete of an SSH run asks about its folder on the host (M2).
  ferry_test(tst_remotedeletewindow GUI SOURCES security/tst_remotedeletewindow.cpp LIBS ferry_ui)
  set_tests_properties(tst_remotedeletewindow PROPERTIES FIXTURES_REQUIRED sshd TIMEOUT 600)
endif()

# M4: a start not confirmed in time, and a killed supervisor, leave a run that is followed and
# cancelled with all its processes (real `ferry`, real Python scripts, /proc).
ferry_test(tst_runlifecycle SOURCES security/tst_runlifecycle.cpp)

if(FERRY_GUI)
  # M9: squatted SSH control folders in the shared /tmp (another user's, 0777, listening at the
  # socket name) are never used; real ssh to the test sshd goes through a private folder.
  ferry_test(tst_sshcontrolsquat SOURCES security/tst_sshcontrolsquat.cpp)
  # It plants /tmp/ferry-ssh and /tmp/runtime-<user> for its run: nothing else may see them.
  set_tests_properties(tst_sshcontrolsquat PROPERTIES FIXTURES_REQUIRED sshd RUN_SERIAL ON)

  # L4: a squatter at the old single-instance socket name, or in a squatted XDG_RUNTIME_DIR,
  # never receives the paths; the real second `ferry` hands them to the real first one.
  ferry_test(tst_singleinstancesquat GUI SOURCES security/tst_singleinstancesquat.cpp LIBS ferry_ui)
endif()
# Issue 19: `ferry runs import` of crafted bundles (libarchive writes them as an attacker would).
ferry_test(tst_runbundleimport SOURCES security/tst_runbundleimport.cpp LIBS LibArchive::LibArchive)
set_tests_properties(tst_runbundleimport PROPERTIES LABELS "security")
