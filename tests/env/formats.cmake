# formats tests
