#pragma once
// \brief Precompiled for every Qt Test program on core and io (tests/CMakeLists.txt, HALFTONE_TEST_PCH): Qt Test
// and the C++ library headers the tests use most.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>
