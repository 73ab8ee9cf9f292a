/* --plot FILE.png: accuracy against end-to-end time, drawn by gnuplot. */
#ifndef QMM_COMPARE_PLOT_H
#define QMM_COMPARE_PLOT_H

#include <stddef.h>

#include "options.h"
#include "run.h"

/* Nonzero when a program named gnuplot is on PATH, as posix_spawnp will
 * look for it: asked before the run, so that a missing gnuplot is said
 * before minutes of timing rather than after. */
int compare_gnuplot_found(void);

/* Draws records[0..count) into png: one panel per distribution, relative
 * L2 error (log) against end-to-end time over cblas_dgemm's on the same
 * case (log), one point per method and shape. gnuplot runs on a script in a
 * temporary file, its output going to stderr. Returns 0 when it could not
 * run or failed (said on stderr; the script is then kept and named). */
int compare_plot(const char *png, const compare_options *opt, const compare_record *records,
                 size_t count);

#endif
