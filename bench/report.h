/* The results: a table for people, or CSV for scripts, on stdout; the details
 * of any failure on stderr. */
#ifndef QMM_BENCH_REPORT_H
#define QMM_BENCH_REPORT_H

#include <stddef.h>

#include "run.h"
#include "shapes.h"

/* The header, for count contenders (2: a --vs comparison). */
void bench_report_begin(int csv, const bench_contender *who, size_t count);

/* One shape's line, and on stderr what went wrong if something did. */
void bench_report_shape(int csv, bench_shape s, const bench_contender *who, size_t count,
                        const bench_shape_result *r);

/* After the table, for each shape that ran (results[i].reps != 0) as a
 * decode step of a plan contender (weights.h), the weights' bytes over the
 * median time: how close the plan comes to the read bandwidth (--bandwidth).
 * Nothing in CSV. */
void bench_report_weights_read(int csv, const bench_shape *shapes,
                               const bench_shape_result *results, size_t shape_count,
                               const bench_contender *who, size_t count);

/* After the table, when the two contenders run on different thread counts
 * (--threads N,M), what one call did on each (compute/work.h): the tasks,
 * the bytes packed and the tiles computed, B's against A's, and the partial
 * sums added: the work a product does on more threads, counted, not timed.
 * In CSV these are columns of the table. */
void bench_report_work(int csv, const bench_shape *shapes, const bench_shape_result *results,
                       size_t shape_count, const bench_contender *who, size_t count);

/* --bandwidth's answer, given in bytes per second. */
void bench_report_bandwidth(double bytes_per_second);

#endif
