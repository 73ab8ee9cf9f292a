#include "report.h"

#include <math.h>

#include "machine.h"
#include "sanity.h"

/* Wide enough for compare_method_label's longest: "qmm_dgemm_i8 per channel, 16 slices". */
#define METHOD_WIDTH 36
#define TEXT_SIZE 256

void compare_print_legend(FILE *out)
{
    fprintf(out,
            "  rel L2 error  ||C - C_ref||_F / ||C_ref||_F, C_ref = cblas_dgemm on the same\n"
            "                double operands (the float methods get float copies of them)\n"
            "  max |error|   max |C - C_ref| over C\n"
            "  kernel        the int8 GEMMs alone, on operands made beforehand:\n"
            "                qmm_sgemm_i8: qmm_gemm on A and B quantized by\n"
            "                qmm_quantize_symmetric_f32 as it quantizes them, to the exact\n"
            "                int32 sums (QMM_TYPE_I32, no output stage);\n"
            "                qmm_dgemm_i8, s slices: its s products (m x n of depths k, 2k,\n"
            "                .. s*k; A's rows s*k apart) by qmm_i8_i32 on int8 data of the\n"
            "                same shapes (the same products, not its numbers);\n"
            "                qmm_sgemm_crt and qmm_dgemm_crt, N moduli: N products m x n x k,\n"
            "                each on a block of A and of B of its own, by qmm_i8_i32 the\n"
            "                same way (the call itself leaves out the moduli past those\n"
            "                that hold its full precision, qmm.h, and may run fewer).\n"
            "                GOPS: the int8 operations done, 2mnk per GEMM, s(s+1)/2\n"
            "                GEMMs' worth for s slices, N for N moduli. None for BLAS.\n"
            "  e2e           the one call, float or double in and out (quantize + int8\n"
            "                GEMMs + dequantize for qmm). GOPS: 2mnk / time, the float\n"
            "                GEMM's effective rate\n"
            "  x dgemm       cblas_dgemm's e2e time / the method's: above 1 is faster\n"
            "  times         medians of the timed rounds (us), the methods interleaved in\n"
            "                each round, after an untimed round; a call that took under\n"
            "                %.0f ms there is timed right after an untimed call of its own\n",
            COMPARE_REWARM_SECONDS * 1e3);
}

void compare_report_begin(const compare_options *opt)
{
    if (opt->csv) {
        printf("m,k,n,distribution,function,granularity,slices,moduli,threads,reps,"
               "relative_l2_error,max_abs_error,kernel_seconds,kernel_gops,end_to_end_seconds,"
               "end_to_end_gops,speedup_vs_dgemm,check\n");
        fflush(stdout);
        return;
    }
    char cpu[TEXT_SIZE];
    compare_cpu_model(cpu, sizeof cpu);
    printf("qmm-compare: float and double GEMMs through exact int8 (qmm) against OpenBLAS\n"
           "CPU: %s; threads: %zu (qmm and OpenBLAS)\n",
           cpu, opt->threads);
    compare_print_legend(stdout);
    fflush(stdout);
}

static double rate(double ops, double seconds)
{
    return ops / seconds / 1e9;
}

static const char *verdict(const compare_record *r)
{
    if (compare_skipped(r))
        return "skipped";
    return r->status != QMM_OK ? "error" : compare_sanity_passed(r) ? "ok" : "fail";
}

static void print_csv_row(const compare_options *opt, const compare_record *r)
{
    const bench_shape s = r->shape;
    const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    printf("%zu,%zu,%zu,%s,%s,%s,%u,%u,%zu,%zu,", s.m, s.k, s.n, compare_dist_names[r->dist],
           compare_method_function(&r->method), compare_method_granularity(&r->method),
           r->method.slices, r->method.moduli, opt->threads, r->reps);
    if (r->status != QMM_OK) {
        printf(",,,,,,,%s\n", verdict(r));
        return;
    }
    printf("%.6e,%.6e,", r->error.relative_l2, r->error.max_abs);
    if (compare_method_has_kernel(&r->method))
        printf("%.9g,%.4f,", r->kernel_seconds,
               rate(compare_kernel_ops(&r->method, s), r->kernel_seconds));
    else
        printf(",,");
    printf("%.9g,%.4f,%.4f,%s\n", r->end_to_end_seconds, rate(flops, r->end_to_end_seconds),
           r->reference_seconds / r->end_to_end_seconds, verdict(r));
}

static void print_case_header(const compare_record *r)
{
    char shape[BENCH_SHAPE_TEXT_SIZE], kernel[TEXT_SIZE];
    bench_format_shape(r->shape, shape);
    compare_qmm_kernel(r->shape, kernel, sizeof kernel);
    printf("\n%s (MxKxN), %s; %zu rep%s; qmm kernel %s\n", shape,
           compare_dist_descriptions[r->dist], r->reps, r->reps == 1 ? "" : "s", kernel);
    printf("  %-*s %12s %12s %10s %11s %11s %9s %8s\n", METHOD_WIDTH, "method", "rel L2 error",
           "max |error|", "kernel us", "kernel GOPS", "e2e us", "e2e GOPS", "x dgemm");
}

static void print_table_row(const compare_record *r)
{
    char label[TEXT_SIZE];
    compare_method_label(&r->method, label, sizeof label);
    if (compare_skipped(r)) {
        printf("  %-*s skipped: too few moduli for K = %zu (%u hold%s K up to %zu)\n",
               METHOD_WIDTH, label, r->shape.k, r->method.moduli,
               r->method.moduli == 1 ? "s" : "", compare_method_deepest(&r->method));
        return;
    }
    if (r->status != QMM_OK) {
        printf("  %-*s ERROR: %s\n", METHOD_WIDTH, label, qmm_status_str(r->status));
        return;
    }
    const bench_shape s = r->shape;
    const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    printf("  %-*s %12.2e %12.2e ", METHOD_WIDTH, label, r->error.relative_l2,
           r->error.max_abs);
    if (compare_method_has_kernel(&r->method))
        printf("%10.1f %11.2f ", r->kernel_seconds * 1e6,
               rate(compare_kernel_ops(&r->method, s), r->kernel_seconds));
    else
        printf("%10s %11s ", "-", "-");
    printf("%11.1f %9.2f %8.2f", r->end_to_end_seconds * 1e6,
           rate(flops, r->end_to_end_seconds), r->reference_seconds / r->end_to_end_seconds);
    if (isnan(r->error.relative_l2) || isnan(r->error.max_abs))
        printf("  FAIL: NaN");
    else if (!compare_sanity_passed(r))
        printf("  FAIL: above %.0e", compare_sanity_bound(r));
    printf("\n");
}

static void explain_failure(const compare_record *r)
{
    char shape[BENCH_SHAPE_TEXT_SIZE], label[TEXT_SIZE];
    bench_format_shape(r->shape, shape);
    compare_method_label(&r->method, label, sizeof label);
    if (r->status != QMM_OK)
        fprintf(stderr, "qmm-compare: %s, %s, %s: the call failed: %s\n", shape,
                compare_dist_names[r->dist], label, qmm_status_str(r->status));
    else if (isnan(r->error.relative_l2) || isnan(r->error.max_abs))
        fprintf(stderr, "qmm-compare: %s, %s, %s: the result holds NaN\n", shape,
                compare_dist_names[r->dist], label);
    else
        fprintf(stderr,
                "qmm-compare: %s, %s, %s: relative L2 error %.3e is above its sanity bound "
                "%.0e\n",
                shape, compare_dist_names[r->dist], label, r->error.relative_l2,
                compare_sanity_bound(r));
}

void compare_report_case(const compare_options *opt, const compare_record *records,
                         size_t count)
{
    if (!opt->csv)
        print_case_header(&records[0]);
    for (size_t i = 0; i < count; i++) {
        if (opt->csv)
            print_csv_row(opt, &records[i]);
        else
            print_table_row(&records[i]);
    }
    /* Each case as soon as it is done, and before any complaint about it. */
    fflush(stdout);
    for (size_t i = 0; i < count; i++)
        if (!compare_sanity_passed(&records[i]))
            explain_failure(&records[i]);
}
