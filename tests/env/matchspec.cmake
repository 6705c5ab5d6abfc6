# matchspec tests
