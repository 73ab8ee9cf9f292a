/* The kernels compiled into this build: listing them, and finding one by the
 * name the user gave. */
#ifndef QMM_BENCH_KERNEL_LOOKUP_H
#define QMM_BENCH_KERNEL_LOOKUP_H

#include <stdio.h>

#include "kernels/kernel.h"

/* One line per kernel: name, isa, mr, nr, supported here; as a table, or as
 * CSV with a header line. */
void bench_print_kernels(FILE *out, int csv);

/* The kernel called name when it exists and this CPU runs it. Otherwise NULL,
 * after saying why on stderr, with option (the flag that named it) and the
 * list of kernels; a kernel this CPU cannot run is never returned. */
const qmm_kernel *bench_lookup_kernel(const char *option, const char *name);

/* Characters in the longest kernel name, for table columns. */
int bench_kernel_name_width(void);

#endif
