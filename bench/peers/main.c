/*
 * qmm-bench-peers: qmm against oneDNN, XNNPACK, gemmlowp and OpenBLAS on the
 * same operands and shapes, in one process, every library on the same number
 * of threads (--threads N, 1 by default).
 *
 * For each shape C[m×n] = A[m×k]·B[k×n] every contender (one way of calling
 * one library, contender.h; each library's in library_<name>.c) is timed on
 * the same operands, interleaved with the others (run.c). Reported: the
 * median time, GOPS (2mnk / time), qmm's speedup over the contender (its
 * median over qmm one-shot's; for a peer that prepares its weights once, over
 * the qmm plan that packs the same operand once, which the row names) and
 * exactness: the largest |error| of the int32 (or float) result against an
 * exact reference over all of C; for the requantized results (int8 or uint8,
 * no int32 to check), how many of C's entries differ from the peer's that
 * computes the same function, and by how much at most (verdicts.c).
 *
 * --threads N (1 to 1024, default 1) gives every library the same N threads:
 * the process re-executes itself with OMP_NUM_THREADS=N and
 * OPENBLAS_NUM_THREADS=N (oneDNN uses OpenMP, whose runtime reads them when it
 * loads), then each library's start gets N: qmm qmm_set_num_threads(N) (its
 * threads are OpenMP's too by default), OpenBLAS openblas_set_num_threads(N),
 * XNNPACK a pthreadpool of N threads (none for N = 1: it then runs on the
 * calling thread) and gemmlowp a context of at most N threads. Each library
 * still decides how many of them a small product is worth.
 *
 * --avx2 limits qmm and oneDNN to AVX2 (QMM_DISABLE=avx512vnni and
 * dnnl_set_max_cpu_isa): the comparison of an AVX2-only CPU, run on a newer one.
 * XNNPACK, gemmlowp and OpenBLAS have no such switch and keep their best code.
 *
 *   qmm-bench-peers [--shape MxKxN]... [--reps N] [--threads N] [--avx2]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libraries.h"
#include "options.h"
#include "report.h"
#include "run.h"
#include "xmalloc.h"

/* The report's rows: each library's contenders, libraries in this order. */
static const library *const libraries[] = {
    &qmm_library, &onednn_library, &xnnpack_library, &gemmlowp_library, &openblas_library,
};
enum { LIBRARIES = sizeof libraries / sizeof libraries[0] };

/* oneDNN's OpenMP and OpenBLAS read their thread counts from the environment
 * when they load: set them and start again, with the same arguments. The
 * second start finds both variables already equal to `count` and goes on, so
 * this happens once. */
static void set_peer_threads(char **argv, size_t count)
{
    char n[24];
    snprintf(n, sizeof n, "%zu", count);
    const char *omp = getenv("OMP_NUM_THREADS"), *ob = getenv("OPENBLAS_NUM_THREADS");
    if (omp != NULL && strcmp(omp, n) == 0 && ob != NULL && strcmp(ob, n) == 0)
        return;
    if (setenv("OMP_NUM_THREADS", n, 1) != 0 || setenv("OPENBLAS_NUM_THREADS", n, 1) != 0) {
        perror("qmm-bench-peers: setenv");
        exit(1);
    }
    execv("/proc/self/exe", argv);
    fprintf(stderr, "qmm-bench-peers: re-exec with %s thread(s): ", n);
    perror(NULL);
    exit(1);
}

static void stop_libraries(size_t started)
{
    while (started > 0) {
        const library *l = libraries[--started];
        if (l->stop != NULL)
            l->stop();
    }
}

/* Every library started, in order; 0 (the ones started stopped again) when
 * one refuses. */
static int start_libraries(size_t threads, int avx2)
{
    for (size_t l = 0; l < LIBRARIES; l++)
        if (libraries[l]->start != NULL && !libraries[l]->start(threads, avx2)) {
            stop_libraries(l);
            return 0;
        }
    return 1;
}

/* Room for one trial per contender of every library. */
static size_t count_contenders(void)
{
    size_t count = 0;
    for (size_t l = 0; l < LIBRARIES; l++)
        for (const contender *const *c = libraries[l]->contenders; *c != NULL; c++)
            count++;
    return count;
}

/* trials[0..count) made fresh for a shape: each one's contender, in the
 * report's order, and nothing else. */
static void fresh_trials(trial *trials)
{
    size_t w = 0;
    for (size_t l = 0; l < LIBRARIES; l++)
        for (const contender *const *c = libraries[l]->contenders; *c != NULL; c++)
            trials[w++] = (trial){.of = *c};
}

int main(int argc, char **argv)
{
    peer_options opt;
    bench_parse_result parsed = peer_parse_options(argc, argv, &opt);
    if (parsed != BENCH_PARSE_RUN) {
        peer_free_options(&opt);
        return parsed == BENCH_PARSE_HELP ? 0 : 2;
    }
    set_peer_threads(argv, opt.threads);
    if (!start_libraries(opt.threads, opt.avx2)) {
        peer_free_options(&opt);
        return 1;
    }
    report_begin(opt.threads, opt.avx2);
    size_t count = count_contenders();
    trial *trials = xmalloc(count * sizeof *trials);
    int ok = 1;
    for (size_t i = 0; i < opt.shape_count; i++) {
        fresh_trials(trials);
        ok &= run_shape(opt.shapes[i], opt.reps, opt.threads, trials, count);
    }
    free(trials);
    stop_libraries(LIBRARIES);
    peer_free_options(&opt);
    return ok ? 0 : 1;
}
