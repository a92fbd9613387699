// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tracepoints' bodies (trace.h), instantiated once, here.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
