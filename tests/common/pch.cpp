// The translation unit that builds the Qt Test programs' precompiled headers (tests/CMakeLists.txt).
