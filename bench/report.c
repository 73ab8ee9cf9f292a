#include "report.h"

#include <stdint.h>
#include <stdio.h>

#include "bandwidth.h"
#include "kernel_lookup.h"

/* Widths of the table's columns, header and rows alike. */
#define SHAPE_WIDTH 16
/* Room for format_operation's longest text. */
#define OPERATION_TEXT_SIZE 96

static double gops(bench_shape s, double seconds)
{
    return 2.0 * (double)s.m * (double)s.n * (double)s.k / seconds / 1e9;
}

static const char *verdict(const bench_outcome *o)
{
    return o->status != QMM_OK ? "ERROR" : o->check.wrong != 0 ? "FAIL" : "ok";
}

static size_t threads_of(const bench_contender *who)
{
    return who->threads != 0 ? who->threads : qmm_get_num_threads();
}

/* How a contender multiplies: through a plan or not, A's type and C's, as
 * the report shows them. */
static void format_operation(const bench_contender *who, char *text, size_t size)
{
    const char *how = bench_weights_labels[who->weights];
    if (who->a == QMM_TYPE_U8)
        snprintf(text, size, "%s, uint8 A (zero point %d), out %s", how, BENCH_A_ZERO_POINT,
                 bench_out_names[who->out]);
    else
        snprintf(text, size, "%s, int8 A, out %s", how, bench_out_names[who->out]);
}

/* A contender's thread count as the report shows it. */
static void format_threads(const bench_contender *who, char *text, size_t size)
{
    if (who->threads == 0)
        snprintf(text, size, "%zu threads (qmm's default)", qmm_get_num_threads());
    else
        snprintf(text, size, "%zu thread%s", who->threads, who->threads == 1 ? "" : "s");
}

void bench_report_begin(int csv, const bench_contender *who, size_t count)
{
    char ta[64], tb[64], oa[OPERATION_TEXT_SIZE], ob[OPERATION_TEXT_SIZE];
    format_threads(&who[0], ta, sizeof ta);
    format_threads(&who[count - 1], tb, sizeof tb);
    format_operation(&who[0], oa, sizeof oa);
    format_operation(&who[count - 1], ob, sizeof ob);
    if (!csv && count == 1)
        printf("on %s: %s\n", ta, oa);
    if (count == 1 && csv)
        printf("m,k,n,kernel,threads,reps,median_seconds,gops,check,a_type,out,weights,"
               "tasks,packed_bytes,tiles,reduced_bytes\n");
    else if (count == 1)
        printf("%-*s %-*s %6s %12s %9s  %s\n", SHAPE_WIDTH, "shape MxKxN",
               bench_kernel_name_width(), "kernel", "reps", "median us", "GOPS", "check");
    else if (csv)
        printf("m,k,n,kernel_a,kernel_b,threads_a,threads_b,reps,median_seconds_a,gops_a,"
               "median_seconds_b,gops_b,ratio_b_over_a,check_a,check_b,a_type_a,out_a,"
               "a_type_b,out_b,weights_a,weights_b,tasks_a,tasks_b,packed_bytes_a,"
               "packed_bytes_b,tiles_a,tiles_b,reduced_bytes_a,reduced_bytes_b\n");
    else
        printf("A = %s, %s, on %s\nB = %s, %s, on %s\n"
               "%-*s %6s %12s %9s %12s %9s %7s  %-7s %s\n",
               who[0].name, oa, ta, who[1].name, ob, tb, SHAPE_WIDTH, "shape MxKxN", "reps",
               "A median us", "A GOPS",
               "B median us", "B GOPS", "B/A", "check A", "check B");
    /* Out before any complaint on stderr, even when stdout is a pipe. */
    fflush(stdout);
}

static uint64_t packed(const qmm_work *w)
{
    return w->packed_a + w->packed_b;
}

static void print_single(int csv, bench_shape s, const bench_contender *who,
                         const bench_shape_result *r)
{
    const bench_outcome *o = &r->per[0];
    if (csv) {
        printf("%zu,%zu,%zu,%s,%zu,%zu,%.9g,%.4f,%s,%s,%s,%s,%zu,%llu,%llu,%llu\n", s.m, s.k,
               s.n, o->kernel, threads_of(who), r->reps, o->median_seconds,
               gops(s, o->median_seconds), verdict(o), bench_a_names[who->a],
               bench_out_names[who->out], bench_weights_names[who->weights], o->work.tasks,
               (unsigned long long)packed(&o->work), (unsigned long long)o->work.tiles,
               (unsigned long long)o->work.reduced);
        return;
    }
    char text[BENCH_SHAPE_TEXT_SIZE];
    bench_format_shape(s, text);
    printf("%-*s %-*s %6zu %12.1f %9.2f  %s\n", SHAPE_WIDTH, text, bench_kernel_name_width(),
           o->kernel, r->reps, o->median_seconds * 1e6, gops(s, o->median_seconds),
           verdict(o));
}

static void print_comparison(int csv, bench_shape s, const bench_contender *who,
                             const bench_shape_result *r)
{
    const bench_outcome *x = &r->per[0], *y = &r->per[1];
    /* Speed of B relative to A: above 1 when B is faster. */
    double ratio = x->median_seconds / y->median_seconds;
    if (csv) {
        printf("%zu,%zu,%zu,%s,%s,%zu,%zu,%zu,%.9g,%.4f,%.9g,%.4f,%.4f,%s,%s,%s,%s,%s,%s,%s,%s,"
               "%zu,%zu,%llu,%llu,%llu,%llu,%llu,%llu\n",
               s.m, s.k, s.n, x->kernel, y->kernel, threads_of(&who[0]),
               threads_of(&who[1]), r->reps, x->median_seconds, gops(s, x->median_seconds),
               y->median_seconds, gops(s, y->median_seconds), ratio, verdict(x), verdict(y),
               bench_a_names[who[0].a], bench_out_names[who[0].out], bench_a_names[who[1].a],
               bench_out_names[who[1].out], bench_weights_names[who[0].weights],
               bench_weights_names[who[1].weights], x->work.tasks, y->work.tasks,
               (unsigned long long)packed(&x->work), (unsigned long long)packed(&y->work),
               (unsigned long long)x->work.tiles, (unsigned long long)y->work.tiles,
               (unsigned long long)x->work.reduced, (unsigned long long)y->work.reduced);
        return;
    }
    char text[BENCH_SHAPE_TEXT_SIZE];
    bench_format_shape(s, text);
    printf("%-*s %6zu %12.1f %9.2f %12.1f %9.2f %7.3f  %-7s %s\n", SHAPE_WIDTH, text,
           r->reps, x->median_seconds * 1e6, gops(s, x->median_seconds),
           y->median_seconds * 1e6, gops(s, y->median_seconds), ratio, verdict(x),
           verdict(y));
}

static void explain_failure(bench_shape s, const bench_contender *who, const bench_outcome *o)
{
    char text[BENCH_SHAPE_TEXT_SIZE], operation[OPERATION_TEXT_SIZE];
    bench_format_shape(s, text);
    format_operation(who, operation, sizeof operation);
    if (o->status != QMM_OK)
        fprintf(stderr, "qmm-bench: %s %s (%s): the call failed: %s\n", text, o->kernel,
                operation, qmm_status_str(o->status));
    /* %.10g: every int32 whole, every float to the bit. */
    if (o->check.wrong != 0)
        fprintf(stderr,
                "qmm-bench: %s %s (%s): %zu of %zu checked entries wrong; first C(%zu,%zu) = "
                "%.10g, expected %.10g\n",
                text, o->kernel, operation, o->check.wrong, o->check.checked, o->check.i,
                o->check.j, o->check.got, o->check.want);
}

void bench_report_shape(int csv, bench_shape s, const bench_contender *who, size_t count,
                        const bench_shape_result *r)
{
    if (count == 1)
        print_single(csv, s, who, r);
    else
        print_comparison(csv, s, who, r);
    /* Each line as soon as its shape is done, and before any complaint about it. */
    fflush(stdout);
    for (size_t w = 0; w < count; w++)
        if (!bench_outcome_passed(&r->per[w]))
            explain_failure(s, &who[w], &r->per[w]);
}

/* Contender w's decode-step line for shape s, if s is one for it. */
static void print_weights_read(bench_shape s, const bench_contender *who, size_t w,
                               size_t count, const bench_outcome *o)
{
    const size_t bytes = bench_decode_weight_bytes(s, who[w].weights);
    if (bytes == 0 || !bench_outcome_passed(o))
        return;
    char text[BENCH_SHAPE_TEXT_SIZE];
    bench_format_shape(s, text);
    /* With two, the contender named as the header names it. */
    const char *which = count == 1 ? "" : w == 0 ? "A, " : "B, ";
    printf("%s (%s%s): weights read at %.2f GB/s\n", text, which,
           bench_weights_labels[who[w].weights], (double)bytes / o->median_seconds / 1e9);
}

void bench_report_weights_read(int csv, const bench_shape *shapes,
                               const bench_shape_result *results, size_t shape_count,
                               const bench_contender *who, size_t count)
{
    /* CSV has the figure's sizes and times in its columns already, and a
     * line of another kind would break it. */
    if (csv)
        return;
    for (size_t i = 0; i < shape_count; i++)
        for (size_t w = 0; w < count && results[i].reps != 0; w++)
            print_weights_read(shapes[i], who, w, count, &results[i].per[w]);
}

/* y over x, or 0 when x did none. */
static double relative(uint64_t y, uint64_t x)
{
    return x != 0 ? (double)y / (double)x : 0;
}

void bench_report_work(int csv, const bench_shape *shapes, const bench_shape_result *results,
                       size_t shape_count, const bench_contender *who, size_t count)
{
    if (csv || count != 2 || threads_of(&who[0]) == threads_of(&who[1]))
        return;
    printf("\nwork of one call, A -> B (B/A): tasks, bytes packed, tiles, partial sums added\n");
    for (size_t i = 0; i < shape_count; i++) {
        if (results[i].reps == 0)
            continue;
        const qmm_work *x = &results[i].per[0].work, *y = &results[i].per[1].work;
        char text[BENCH_SHAPE_TEXT_SIZE];
        bench_format_shape(shapes[i], text);
        printf("%-*s %zu -> %zu tasks, %.2f -> %.2f MiB packed (%.3f), %llu -> %llu tiles "
               "(%.3f), %.1f -> %.1f KiB added\n",
               SHAPE_WIDTH, text, x->tasks, y->tasks, (double)packed(x) / (1 << 20),
               (double)packed(y) / (1 << 20), relative(packed(y), packed(x)),
               (unsigned long long)x->tiles, (unsigned long long)y->tiles,
               relative(y->tiles, x->tiles), (double)x->reduced / 1024,
               (double)y->reduced / 1024);
    }
}

void bench_report_bandwidth(double bytes_per_second)
{
    printf("read bandwidth: %.2f GB/s (one thread; the best of %d sums of %d MiB of int64)\n",
           bytes_per_second / 1e9, BENCH_BANDWIDTH_TRIES, BENCH_BANDWIDTH_MIB);
}
