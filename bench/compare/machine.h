/* What the results were measured on, for the report's header. */
#ifndef QMM_COMPARE_MACHINE_H
#define QMM_COMPARE_MACHINE_H

#include <stddef.h>

#include "../shapes.h"

/* The first "model name" of /proc/cpuinfo, else "unknown CPU". */
void compare_cpu_model(char *text, size_t size);

/* The kernel qmm picks for an m x n product into text, else "?". */
void compare_qmm_kernel(bench_shape s, char *text, size_t size);

#endif
