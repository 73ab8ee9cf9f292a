/* The results: an aligned table for people, or CSV for scripts, on stdout;
 * what failed, on stderr. */
#ifndef QMM_COMPARE_REPORT_H
#define QMM_COMPARE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"
#include "run.h"

/* The legend of the table's columns, shared with --help. */
void compare_print_legend(FILE *out);

/* The header: the machine, the threads, the legend (CSV: the column names). */
void compare_report_begin(const compare_options *opt);

/* One case's rows, records[0] being cblas_dgemm's; on stderr, each record
 * that failed its call or its sanity bound (sanity.h). */
void compare_report_case(const compare_options *opt, const compare_record *records,
                         size_t count);

#endif
