# pep508 tests
