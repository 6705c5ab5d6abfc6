# devcontainer tests
