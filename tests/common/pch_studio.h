#pragma once
// \brief Precompiled for every Qt Test program that links the studio's widgets (tests/CMakeLists.txt,
// HALFTONE_TEST_PCH): pch_core.h, Qt Widgets and QCustomPlot.
#include "tests/common/pch_core.h"

#include <QtWidgets>
#include <qcustomplot.h>
