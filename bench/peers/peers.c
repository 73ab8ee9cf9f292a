/*
 * qmm-bench-peers: qmm against oneDNN, XNNPACK, gemmlowp and OpenBLAS on the
 * same operands and shapes, in one process, every library on the same number
 * of threads (--threads N, 1 by default).
 *
 * For each shape C[m×n] = A[m×k]·B[k×n] (random full-range int8, with the
 * extreme product -128·-128 in C(0,0)), every contender is prepared outside
 * the timing (its operands converted to the form it takes: uint8 with an
 * offset, float, transposed), then the repetitions are interleaved: one timed
 * call of each contender per repetition, so that all see the same machine
 * state. Each timed call follows an untimed call of the same contender, so
 * that every one finds the operands (and its own buffers) as warm as the
 * others do: timed cold, the first contender of a repetition would pay for
 * bringing A and B into the caches for all those after it (qmm, first, ran
 * 5-10% slower than the same call right after it on Zen5).
 * Reported: the median time, GOPS (2mnk / time), qmm's speedup over the peer
 * (peer median / qmm one-shot median) and exactness, the largest |error| of
 * the int32 (or float) result against an exact reference over all of C.
 *
 *   qmm             qmm_i8_i32, packing A and B included in every call
 *   qmm plan        qmm_plan_run on a plan whose A was packed once (weights as A)
 *   oneDNN s8s8s32  dnnl_gemm_s8s8s32, row-major, no offsets
 *   oneDNN u8s8s32  dnnl_gemm_u8s8s32 on A+128 (uint8) with A offset 128: the same
 *                   product; it is the fastest oneDNN int8 path
 *   XNNPACK qs8 FC  xnn fully-connected qs8 with int8 output ("requantized": no
 *                   int32 result to check); weights packed when the operator is
 *                   created, outside the timing. The batch is the smaller side:
 *                   batch m (input A, weights B) or batch n (input B^T, weights A)
 *   gemmlowp        uint8 A+128 and B+128 with offsets -128 on both, int32 out
 *   OpenBLAS sgemm  cblas_sgemm on the operands as float: the float baseline
 *
 * --threads N (1 to 1024, default 1) gives every library the same N threads:
 * the process re-executes itself with OMP_NUM_THREADS=N and
 * OPENBLAS_NUM_THREADS=N (oneDNN uses OpenMP, whose runtime reads them when it
 * loads), then qmm gets qmm_set_num_threads(N) (its threads are OpenMP's too
 * by default), OpenBLAS openblas_set_num_threads(N), XNNPACK a pthreadpool of
 * N threads (none for N = 1: it then runs on the calling thread) and gemmlowp
 * a context of at most N threads. Each library still decides how many of them
 * a small product is worth.
 *
 * --avx2 limits qmm and oneDNN to AVX2 (QMM_DISABLE=avx512vnni and
 * dnnl_set_max_cpu_isa): the comparison of an AVX2-only CPU, run on a newer one.
 * XNNPACK, gemmlowp and OpenBLAS have no such switch and keep their best code.
 *
 *   qmm-bench-peers [--shape MxKxN]... [--reps N] [--threads N] [--avx2]
 */
#include <dirent.h>
#include <dnnl.h>
#include <math.h>
#include <pthreadpool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xnnpack.h>

#include "gemmlowp_peer.h"
#include "qmm/qmm.h"

/* From OpenBLAS's cblas.h; declared here so that any cblas.h will do. */
enum { ROW_MAJOR = 101, NO_TRANS = 111 };
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c,
                 int ldc);
void openblas_set_num_threads(int num_threads);

typedef struct shape {
    size_t m, k, n;
    const char *what;
} shape;

static const shape default_shapes[] = {
    {1024, 1024, 1024, "square"},
    {128, 384, 384, "MiniLM tokens x in x out"},
    {128, 384, 1152, "MiniLM tokens x in x out"},
    {128, 384, 1536, "MiniLM tokens x in x out"},
    {128, 1536, 384, "MiniLM tokens x in x out"},
    {384, 384, 128, "MiniLM weights as A (out x in x tokens)"},
    {1152, 384, 128, "MiniLM weights as A (out x in x tokens)"},
    {1536, 384, 128, "MiniLM weights as A (out x in x tokens)"},
    {384, 1536, 128, "MiniLM weights as A (out x in x tokens)"},
    {1024, 1024, 1, "GEMV"},
};

/* XNNPACK's thread pool: NULL for one thread (XNNPACK then runs on the
 * calling thread), else pthreadpool_create(threads) in main. */
static pthreadpool_t xnn_pool;

/* ---- operands ----------------------------------------------------------- */

typedef struct operands {
    shape s;
    int8_t *a, *b, *bt;       /* A m×k, B k×n, B^T n×k */
    uint8_t *a_u8, *b_u8;     /* A+128, B+128 */
    float *af, *bf;
    int32_t *ref;             /* exact C */
} operands;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static int8_t random_i8(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (int8_t)(int)((rng_state >> 24) % 256 - 128);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "qmm-bench-peers: out of memory\n");
        exit(1);
    }
    return p;
}

static operands make_operands(shape s)
{
    operands o = {.s = s};
    size_t m = s.m, k = s.k, n = s.n;
    o.a = xmalloc(m * k);
    o.b = xmalloc(k * n);
    o.bt = xmalloc(k * n);
    o.a_u8 = xmalloc(m * k);
    o.b_u8 = xmalloc(k * n);
    o.af = xmalloc(m * k * sizeof(float));
    o.bf = xmalloc(k * n * sizeof(float));
    o.ref = xmalloc(m * n * sizeof(int32_t));
    for (size_t i = 0; i < m * k; i++)
        o.a[i] = random_i8();
    for (size_t i = 0; i < k * n; i++)
        o.b[i] = random_i8();
    o.a[0] = o.b[0] = INT8_MIN;
    for (size_t i = 0; i < m * k; i++) {
        o.a_u8[i] = (uint8_t)(o.a[i] + 128);
        o.af[i] = o.a[i];
    }
    for (size_t p = 0; p < k; p++)
        for (size_t j = 0; j < n; j++) {
            int8_t v = o.b[p * n + j];
            o.bt[j * k + p] = v;
            o.b_u8[p * n + j] = (uint8_t)(v + 128);
            o.bf[p * n + j] = v;
        }
    /* The exact product, naively (int64 sums: no wrap-around at these sizes). */
    int64_t *row = xmalloc(n * sizeof *row);
    for (size_t i = 0; i < m; i++) {
        memset(row, 0, n * sizeof *row);
        for (size_t p = 0; p < k; p++) {
            int64_t av = o.a[i * k + p];
            const int8_t *bp = o.b + p * n;
            for (size_t j = 0; j < n; j++)
                row[j] += av * bp[j];
        }
        for (size_t j = 0; j < n; j++)
            o.ref[i * n + j] = (int32_t)row[j];
    }
    free(row);
    return o;
}

static void free_operands(operands *o)
{
    free(o->a);
    free(o->b);
    free(o->bt);
    free(o->a_u8);
    free(o->b_u8);
    free(o->af);
    free(o->bf);
    free(o->ref);
}

/* ---- contenders --------------------------------------------------------- */

typedef struct contender contender;
struct contender {
    const char *name;
    int (*setup)(contender *, const operands *);   /* 0: cannot run this shape */
    int (*run)(contender *, const operands *);     /* the timed call; 0 on failure */
    double (*error)(contender *, const operands *);  /* max |error|; < 0: requantized */
    void (*teardown)(contender *);
    void *state;
    int32_t *c;
    float *cf;
    int8_t *c8;
};

/* Largest |result - exact| over C, the result read from c (int32) or cf. */
static double max_error(const contender *w, const operands *o, int from_float)
{
    double worst = 0;
    for (size_t i = 0; i < o->s.m * o->s.n; i++) {
        double got = from_float ? (double)w->cf[i] : (double)w->c[i];
        double e = fabs(got - (double)o->ref[i]);
        worst = e > worst ? e : worst;
    }
    return worst;
}

static double int32_error(contender *w, const operands *o)
{
    return max_error(w, o, 0);
}

static double float_error(contender *w, const operands *o)
{
    return max_error(w, o, 1);
}

static int alloc_c(contender *w, const operands *o)
{
    w->c = xmalloc(o->s.m * o->s.n * sizeof *w->c);
    memset(w->c, 0xa5, o->s.m * o->s.n * sizeof *w->c);
    return 1;
}

static void free_c(contender *w)
{
    free(w->c);
    free(w->cf);
    free(w->c8);
    w->c = NULL;
    w->cf = NULL;
    w->c8 = NULL;
}

/* qmm, one-shot. */
static int qmm_run(contender *w, const operands *o)
{
    shape s = o->s;
    return qmm_i8_i32(s.m, s.n, s.k, o->a, s.k, o->b, s.n, w->c, s.n) == QMM_OK;
}

/* qmm, A packed once in a plan. */
static int qmm_plan_setup(contender *w, const operands *o)
{
    qmm_plan *p;
    alloc_c(w, o);
    if (qmm_plan_create(&p, o->s.m, o->s.n, o->s.k) != QMM_OK)
        return 0;
    if (qmm_plan_pack_a(p, o->a, o->s.k) != QMM_OK) {
        qmm_plan_destroy(p);
        return 0;
    }
    w->state = p;
    return 1;
}
static int qmm_plan_run_one(contender *w, const operands *o)
{
    return qmm_plan_run(w->state, o->s.n, o->b, o->s.n, w->c, o->s.n) == QMM_OK;
}
static void qmm_plan_teardown(contender *w)
{
    qmm_plan_destroy(w->state);
    free_c(w);
}

/* oneDNN. */
static int dnnl_s8_run(contender *w, const operands *o)
{
    shape s = o->s;
    const int32_t co = 0;
    return dnnl_gemm_s8s8s32('N', 'N', 'F', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k,
                             1.0f, o->a, (dnnl_dim_t)s.k, 0, o->b, (dnnl_dim_t)s.n, 0, 0.0f,
                             w->c, (dnnl_dim_t)s.n, &co) == dnnl_success;
}
static int dnnl_u8_run(contender *w, const operands *o)
{
    shape s = o->s;
    const int32_t co = 0;
    return dnnl_gemm_u8s8s32('N', 'N', 'F', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k,
                             1.0f, o->a_u8, (dnnl_dim_t)s.k, 128, o->b, (dnnl_dim_t)s.n, 0,
                             0.0f, w->c, (dnnl_dim_t)s.n, &co) == dnnl_success;
}

/* XNNPACK: batch on the smaller side (see the top of the file). */
typedef struct xnn_state {
    xnn_operator_t op;
    size_t batch;
    const int8_t *input;
} xnn_state;

static int xnn_setup(contender *w, const operands *o)
{
    static int initialized;
    if (!initialized) {
        if (xnn_initialize(NULL) != xnn_status_success)
            return 0;
        initialized = 1;
    }
    shape s = o->s;
    int batch_m = s.m <= s.n;
    size_t batch = batch_m ? s.m : s.n, out = batch_m ? s.n : s.m;
    const int8_t *weights = batch_m ? o->bt : o->a;  /* [out][in] */
    xnn_state *x = xmalloc(sizeof *x);
    x->batch = batch;
    x->input = batch_m ? o->a : o->bt;
    /* Scale the int32 sums (standard deviation about 5461·sqrt(k)) into int8. */
    float out_scale = 4.0f * 5461.0f * sqrtf((float)s.k) / 127.0f;
    if (xnn_create_fully_connected_nc_qs8(s.k, out, s.k, out, 0, 1.0f, 1.0f, weights, NULL, 0,
                                          out_scale, -128, 127, 0, &x->op) !=
        xnn_status_success) {
        free(x);
        return 0;
    }
    w->c8 = xmalloc(batch * out);
    w->state = x;
    return 1;
}
static int xnn_run(contender *w, const operands *o)
{
    (void)o;
    xnn_state *x = w->state;
    return xnn_setup_fully_connected_nc_qs8(x->op, x->batch, x->input, w->c8, xnn_pool) ==
               xnn_status_success &&
           xnn_run_operator(x->op, xnn_pool) == xnn_status_success;
}
static double requantized(contender *w, const operands *o)
{
    (void)w;
    (void)o;
    return -1;
}
static void xnn_teardown(contender *w)
{
    xnn_state *x = w->state;
    xnn_delete_operator(x->op);
    free(x);
    free_c(w);
}

/* gemmlowp. */
static int gemmlowp_run(contender *w, const operands *o)
{
    shape s = o->s;
    peer_gemmlowp_u8_i32((int)s.m, (int)s.n, (int)s.k, o->a_u8, -128, o->b_u8, -128, w->c);
    return 1;
}

/* OpenBLAS. */
static int sgemm_setup(contender *w, const operands *o)
{
    w->cf = xmalloc(o->s.m * o->s.n * sizeof *w->cf);
    return 1;
}
static int sgemm_run(contender *w, const operands *o)
{
    shape s = o->s;
    cblas_sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, (int)s.m, (int)s.n, (int)s.k, 1.0f, o->af,
                (int)s.k, o->bf, (int)s.n, 0.0f, w->cf, (int)s.n);
    return 1;
}

static contender contenders[] = {
    {"qmm", alloc_c, qmm_run, int32_error, free_c, 0, 0, 0, 0},
    {"qmm plan (A packed once)", qmm_plan_setup, qmm_plan_run_one, int32_error,
     qmm_plan_teardown, 0, 0, 0, 0},
    {"oneDNN s8s8s32", alloc_c, dnnl_s8_run, int32_error, free_c, 0, 0, 0, 0},
    {"oneDNN u8s8s32", alloc_c, dnnl_u8_run, int32_error, free_c, 0, 0, 0, 0},
    {"XNNPACK qs8 FC", xnn_setup, xnn_run, requantized, xnn_teardown, 0, 0, 0, 0},
    {"gemmlowp", alloc_c, gemmlowp_run, int32_error, free_c, 0, 0, 0, 0},
    {"OpenBLAS sgemm", sgemm_setup, sgemm_run, float_error, free_c, 0, 0, 0, 0},
};
enum { CONTENDERS = sizeof contenders / sizeof contenders[0] };

/* ---- timing ------------------------------------------------------------- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, size_t count)
{
    qsort(v, count, sizeof *v, compare_double);
    return count % 2 ? v[count / 2] : (v[count / 2 - 1] + v[count / 2]) / 2;
}

/* A library's worker threads go on spinning for a while after its call, in
 * case another comes (libgomp's for qmm and oneDNN and gemmlowp's for some
 * milliseconds, XNNPACK's pthreadpool's for about 30, OpenBLAS's, yielding,
 * for 2^28 cycles: about 100 ms): with as many threads as cores, the next
 * contender would find a core taken and run at half speed or worse (gemmlowp
 * after XNNPACK, qmm after OpenBLAS). So with more than one thread, every
 * contender's first (untimed) call waits until no thread of this process but
 * the calling one is runnable, as the state letters in
 * /proc/self/task/<tid>/stat tell, for at most a second; its own workers then
 * spin between its untimed and timed calls, as between the calls of a program
 * that makes many. The wait polls without sleeping: on a 2-core KVM guest,
 * letting this thread sleep between polls while XNNPACK's workers spun down
 * (or any 30 ms sleep) left gemmlowp's two threads running one after the
 * other in the calls that followed (4.1 ms on 128x384x1536 instead of 2.1). */
static size_t threads = 1;

static int other_threads_running(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL)
        return 0;
    char self[24];
    snprintf(self, sizeof self, "%ld", (long)getpid());  /* the main thread's tid */
    int running = 0;
    struct dirent *e;
    while (!running && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0)
            continue;
        char path[64], stat[512];
        snprintf(path, sizeof path, "/proc/self/task/%.24s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t len = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[len] = '\0';
        const char *paren = strrchr(stat, ')');  /* after "tid (name)" */
        running = paren != NULL && paren[1] == ' ' && paren[2] == 'R';
    }
    closedir(dir);
    return running;
}

static void wait_for_quiet_workers(void)
{
    if (threads == 1)
        return;
    double start = now();
    while (other_threads_running() && now() - start < 1.0)
        continue;
}

static int bench_shape(shape s, size_t fixed_reps)
{
    operands o = make_operands(s);
    int ready[CONTENDERS], failed = 0;
    double warm = 0;
    for (size_t w = 0; w < CONTENDERS; w++) {
        contender *c = &contenders[w];
        ready[w] = c->setup(c, &o);
        if (ready[w]) {
            wait_for_quiet_workers();
            double t = now();
            ready[w] = c->run(c, &o);
            warm += now() - t;
        }
        if (!ready[w]) {
            fprintf(stderr, "qmm-bench-peers: %s failed on %zux%zux%zu\n", c->name, s.m, s.k,
                    s.n);
            failed = 1;
        }
    }
    size_t reps = fixed_reps;
    if (reps == 0) {
        reps = warm > 0 ? (size_t)(1.5 / (2 * warm)) : 101;
        reps = reps < 7 ? 7 : reps > 101 ? 101 : reps;
    }
    double *times = xmalloc(CONTENDERS * reps * sizeof *times);
    for (size_t r = 0; r < reps; r++)
        for (size_t w = 0; w < CONTENDERS; w++) {
            if (!ready[w])
                continue;
            wait_for_quiet_workers();
            if (!contenders[w].run(&contenders[w], &o))
                ready[w] = 0, failed = 1;
            double t = now();
            if (ready[w] && !contenders[w].run(&contenders[w], &o))
                ready[w] = 0, failed = 1;
            times[w * reps + r] = now() - t;
        }
    double ops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    double qmm_median = ready[0] ? median(times, reps) : 0;
    printf("\n%zux%zux%zu (MxKxN, %s), %zu reps\n", s.m, s.k, s.n, s.what, reps);
    printf("  %-26s %11s %9s %12s  %s\n", "library", "median us", "GOPS", "qmm speedup",
           "max |error| vs exact int32");
    for (size_t w = 0; w < CONTENDERS; w++) {
        contender *c = &contenders[w];
        if (ready[w]) {
            double t = w == 0 ? qmm_median : median(times + w * reps, reps);
            double err = c->error(c, &o);
            char errtext[32];
            if (err < 0)
                snprintf(errtext, sizeof errtext, "requantized (int8 out)");
            else
                snprintf(errtext, sizeof errtext, "%.0f%s", err, err == 0 ? " (exact)" : "");
            printf("  %-26s %11.1f %9.2f %11.2fx  %s\n", c->name, t * 1e6, ops / t * 1e-9,
                   qmm_median > 0 ? t / qmm_median : 0, errtext);
        } else {
            printf("  %-26s %11s %9s %12s  %s\n", c->name, "-", "-", "-", "failed");
        }
        c->teardown(c);
    }
    fflush(stdout);
    free(times);
    free_operands(&o);
    return !failed;
}

/* The peers read their thread counts from the environment when they load:
 * set them and start again, with the same arguments (--threads included). The
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

static const char usage[] =
    "usage: qmm-bench-peers [--shape MxKxN]... [--reps N] [--threads N] [--avx2]\n";

int main(int argc, char **argv)
{
    /* --threads first: the re-exec that gives it to oneDNN and OpenBLAS comes
     * before anything else (the rest of the arguments are read after it). */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            const char *text = argv[++i];
            char *end = NULL;
            unsigned long v = strtoul(text, &end, 10);
            /* Digits only: no sign, no space, nothing after them. */
            if (text[0] < '0' || text[0] > '9' || *end != '\0' || v < 1 ||
                v > QMM_MAX_THREADS) {
                fprintf(stderr, "qmm-bench-peers: bad thread count %s (1 to %d)\n", text,
                        QMM_MAX_THREADS);
                return 2;
            }
            threads = (size_t)v;
        } else if (strcmp(argv[i], "--shape") == 0 || strcmp(argv[i], "--reps") == 0) {
            i++;  /* their value is never taken for an option */
        }
    }
    set_peer_threads(argv, threads);
    shape *shapes = xmalloc((size_t)argc * sizeof *shapes);
    size_t count = 0, reps = 0;
    int avx2 = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
            shape s = {0, 0, 0, "--shape"};
            if (sscanf(argv[++i], "%zux%zux%zu", &s.m, &s.k, &s.n) != 3 || s.m == 0 ||
                s.k == 0 || s.n == 0 || s.m > 65536 || s.k > 65536 || s.n > 65536) {
                fprintf(stderr, "qmm-bench-peers: bad shape %s (MxKxN)\n", argv[i]);
                return 2;
            }
            shapes[count++] = s;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = (size_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            i++;  /* read above */
        } else if (strcmp(argv[i], "--avx2") == 0) {
            /* Before the first call of either library, which read these once. */
            setenv("QMM_DISABLE", "avx512vnni", 1);
            if (dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2) != dnnl_success) {
                fprintf(stderr, "qmm-bench-peers: oneDNN refused to stop at AVX2\n");
                return 1;
            }
            avx2 = 1;
        } else {
            int help = strcmp(argv[i], "--help") == 0;
            fputs(usage, help ? stdout : stderr);
            return help ? 0 : 2;
        }
    }
    const shape *list = count ? shapes : default_shapes;
    if (count == 0)
        count = sizeof default_shapes / sizeof default_shapes[0];
    /* After --avx2, which must come before qmm's first call. */
    if (qmm_set_num_threads(threads) != QMM_OK) {
        fprintf(stderr, "qmm-bench-peers: qmm refused %zu threads\n", threads);
        return 1;
    }
    openblas_set_num_threads((int)threads);
    peer_gemmlowp_set_num_threads((int)threads);
    if (threads > 1) {
        xnn_pool = pthreadpool_create(threads);
        if (xnn_pool == NULL) {
            fprintf(stderr, "qmm-bench-peers: no pthreadpool of %zu threads\n", threads);
            return 1;
        }
    }
    printf("qmm-bench-peers: threads: %zu (every library); qmm speedup = peer median / "
           "qmm median (qmm one-shot, packing included)%s\n",
           threads, avx2 ? "; qmm and oneDNN limited to AVX2" : "");
    int ok = 1;
    for (size_t i = 0; i < count; i++)
        ok &= bench_shape(list[i], reps);
    if (xnn_pool != NULL)
        pthreadpool_destroy(xnn_pool);
    free(shapes);
    return ok ? 0 : 1;
}
