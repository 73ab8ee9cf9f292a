/* OpenBLAS's cblas_sgemm on the operands as float: the float baseline that
 * an int8 GEMM has to beat. */
#include "../blas.h"
#include "libraries.h"

static int openblas_start(size_t threads, int avx2)
{
    (void)avx2;
    openblas_set_num_threads((int)threads);
    return 1;
}

static int sgemm_run(trial *t, const operands *o)
{
    shape s = o->s;
    cblas_sgemm(BENCH_CBLAS_ROW_MAJOR, BENCH_CBLAS_NO_TRANS, BENCH_CBLAS_NO_TRANS, (int)s.m,
                (int)s.n, (int)s.k, 1.0f, o->af, (int)s.k, o->bf, (int)s.n, 0.0f, t->c,
                (int)s.n);
    return 1;
}

static const contender sgemm = {
    .name = "OpenBLAS sgemm", .result = RESULT_F32, .run = sgemm_run,
};

static const contender *const contenders[] = {&sgemm, NULL};

const library openblas_library = {.start = openblas_start, .contenders = contenders};
