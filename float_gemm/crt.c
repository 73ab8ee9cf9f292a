#include "crt.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../compute/job.h"
#include "../compute/packed.h"
#include "../compute/ranges.h"
#include "../dispatch/choose.h"
#include "../output/epilogue.h"
#include "../platform/log.h"
#include "../quantize/quantize.h"
#include "crt_moduli.h"
#include "crt_passes.h"
#include "float_gemm.h"

/* A' has at most this many bits, so that its rounding in the residues pass
 * is exact (|x| < 2^52) and a double holds every A' and its residues'
 * quotients (p round(A' / p) < 2^53). */
enum { MOST_BITS = 52 };

/* 2^e for |e| <= 1022: a normal double, built from its exponent bits. */
static inline double power_of_two(int e)
{
    const uint64_t bits = (uint64_t)(e + 1023) << 52;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* The scale 2^s of a line as two normal factors, so that any s from
 * -1100 to 1200 multiplies exactly (x * f1 * f2 rounds only where the
 * result is below 2^-1022, far below 1/2, where it rounds to 0 anyway). */
static qmm_crt_scale scale_of(int s)
{
    const int half = s / 2;
    return (qmm_crt_scale){power_of_two(half), power_of_two(s - half)};
}

/* ---- exponents: the least E with |x| < 2^E over each line ---------------- */

/* Each line's E (frexp's exponent of its largest magnitude; 0 for a line of
 * zeros), from the quantizers' extrema pass, which also refuses a NaN or
 * infinite value. most holds a float or double per line. */
static qmm_status line_exponents(qmm_crt_type type, const void *x, size_t ld, size_t rows,
                                 size_t cols, qmm_per per, void *most, int *e)
{
    const int is_f64 = type == QMM_CRT_F64;
    qmm_status st = qmm_quantize_max_abs(is_f64, x, ld, rows, cols, per, most);
    for (size_t l = 0; st == QMM_OK && l < (per == QMM_PER_ROW ? rows : cols); l++) {
        const double v = is_f64 ? ((const double *)most)[l] : ((const float *)most)[l];
        e[l] = 0;
        if (v > 0)
            frexp(v, &e[l]);
    }
    return st;
}

/* ---- residues: A' and B' modulo every p, as int8 -------------------------- */

/* Bytes of an element of A, B and C. */
static size_t elem_bytes(qmm_crt_type type)
{
    return type == QMM_CRT_F64 ? sizeof(double) : sizeof(float);
}

typedef struct residues {
    qmm_crt_type type;
    const void *x;
    size_t ld, rows, cols;
    const qmm_crt_scale *row_scale;   /* A: per row; NULL for B */
    const qmm_crt_scale *col_scale;   /* B: per column; NULL for A */
    const qmm_crt_moduli *mod;
    const qmm_crt_passes *passes;
    int8_t *out;               /* modulus t's rows x cols at out + t * plane, rows cols apart */
    size_t plane;
} residues;

enum { RUN = 256 };  /* elements of a line handled at once, on the stack */

/* B's rows this far ahead are fetched while a row is reduced: the rows of
 * a strip of B are a page or more apart, beyond the hardware's prefetching
 * (A's whole rows are within it). */
enum { AHEAD = 8 };

static void residue_rows(void *context, size_t task, size_t lo, size_t hi)
{
    (void)task;
    const residues *r = context;
    const size_t elem = elem_bytes(r->type);
    for (size_t i = lo; i < hi; i++) {
        if (r->col_scale != NULL && i + AHEAD < hi) {
            const char *ahead = (const char *)r->x + (i + AHEAD) * r->ld * elem;
            for (size_t at = 0; at < r->cols * elem; at += 64)
                __builtin_prefetch(ahead + at);
        }
        r->passes->residues((const char *)r->x + i * r->ld * elem, r->type == QMM_CRT_F64,
                            r->row_scale != NULL ? r->row_scale + i : r->col_scale,
                            r->row_scale == NULL, r->cols, r->mod, r->out + i * r->cols,
                            r->plane);
    }
}

/* ---- B's residues, packed a strip of columns at a time ---------------- */

/* A strip's residues of every modulus fill about STRIP_BYTES, to stay in
 * cache from the residues pass to the packing; a block of A's rows (below)
 * about BLOCK_BYTES. Tests set smaller sizes (qmm_crt_set_block_bytes). */
enum { STRIP_BYTES = 1 << 20, BLOCK_BYTES = 1 << 22 };

static atomic_size_t block_bytes_set, strip_bytes_set;

void qmm_crt_set_block_bytes(size_t block, size_t strip)
{
    atomic_store_explicit(&block_bytes_set, block, memory_order_relaxed);
    atomic_store_explicit(&strip_bytes_set, strip, memory_order_relaxed);
}

static size_t bytes_or(atomic_size_t *set, size_t fallback)
{
    const size_t bytes = atomic_load_explicit(set, memory_order_relaxed);
    return bytes != 0 ? bytes : fallback;
}

typedef struct b_strips {
    residues res;                 /* all of B's, out the task's strip buffer */
    size_t width, strips, tasks;
    const qmm_kernel *kern;
    const qmm_blocking *blk;
    unsigned char *packed;        /* modulus t's B packed at packed + t * stride */
    size_t stride;
    int8_t *buffers;              /* task t's at buffers + t * moduli * k * width */
} b_strips;

static void pack_strips(void *context, size_t task)
{
    const b_strips *s = context;
    const unsigned nr = s->kern->nr, moduli = s->res.mod->count;
    const size_t k = s->res.rows, n = s->res.cols;
    int8_t *buf = s->buffers + task * moduli * k * s->width;
    for (size_t strip = task; strip < s->strips; strip += s->tasks) {
        const size_t j0 = strip * s->width, cols = n - j0 < s->width ? n - j0 : s->width;
        residues r = s->res;
        r.x = (const char *)r.x + j0 * elem_bytes(r.type);
        r.cols = cols;
        r.col_scale += j0;
        r.out = buf;
        r.plane = k * cols;
        residue_rows(&r, 0, 0, k);
        for (unsigned t = 0; t < moduli; t++) {
            const qmm_panels x = qmm_packed(s->kern, s->blk, QMM_PACKED_B, n, NULL, 0, 0,
                                            s->packed + t * s->stride);
            qmm_packed_fill_part(&x, s->blk, j0 / nr, qmm_ceil_div(cols, nr), buf + t * k * cols,
                                 1, (ptrdiff_t)cols);
        }
    }
}

/* ---- the products' residues ---------------------------------------------- */

/* The symmetric residues of exact int64 sums (a product deeper than
 * QMM_EXACT_DEPTH, whose sums are below 2^52 for any k a size_t holds in
 * memory), modulo the one modulus of `mod`. */
typedef struct deep_residues {
    const int64_t *s;
    int8_t *out;
    size_t n;
    const qmm_crt_moduli *mod;
    const qmm_crt_passes *passes;
} deep_residues;

static void deep_residue_rows(void *context, size_t task, size_t lo, size_t hi)
{
    (void)task;
    const deep_residues *d = context;
    double v[RUN];
    const qmm_crt_scale one = {1, 1};
    for (size_t at = lo * d->n; at < hi * d->n; at += RUN) {
        const size_t len = hi * d->n - at < RUN ? hi * d->n - at : RUN;
        for (size_t e = 0; e < len; e++)
            v[e] = (double)d->s[at + e];
        d->passes->residues(v, 1, &one, 0, len, d->mod, d->out + at, 0);
    }
}

/* C_t = A_t.B_t modulo p_t as int8 for every modulus t (m x n, dense, at
 * c + t m n; A_t at a + t m k, B_t at b + t k n, or packed at packed_b +
 * t packed_step when packed_b is not NULL): one batched job whose stages keep
 * the residues while each tile is in cache; a deeper product than int32
 * holds is summed in int64 first, a modulus at a time. */
static qmm_status residue_products(const qmm_kernel *kern, const qmm_crt_passes *passes,
                                   const qmm_crt_moduli *mod, size_t m, size_t n, size_t k,
                                   const int8_t *a, const int8_t *b,
                                   const unsigned char *packed_b, size_t packed_step, int8_t *c,
                                   int32_t *s32, int64_t *s64)
{
    qmm_status st = QMM_OK;
    if (k > QMM_EXACT_DEPTH) {
        for (unsigned t = 0; t < mod->count && st == QMM_OK; t++) {
            st = qmm_exact_sums(m, n, k, a + t * m * k, k, b + t * k * n, n, s32, s64);
            if (st == QMM_OK) {
                const qmm_crt_moduli one = qmm_crt_modulus(mod, t);
                deep_residues d = {s64, c + t * m * n, n, &one, passes};
                qmm_ranges_for(m, (double)n, deep_residue_rows, &d);
            }
        }
        return st;
    }
    qmm_epilogue e[QMM_CRT_MAX_MODULI];
    for (unsigned t = 0; t < mod->count; t++)
        e[t] = (qmm_epilogue){.tile = qmm_epilogue_pick(), .type = QMM_TYPE_I8, .c = c + t * m * n,
                              .rs = (ptrdiff_t)n, .cs = 1, .modulus = mod->p[t]};
    qmm_job job = {.kern = kern, .m = m, .n = n, .k = k, .a = a, .rsa = (ptrdiff_t)k, .csa = 1,
                   .packed_b = packed_b, .b = b, .rsb = (ptrdiff_t)n, .csb = 1, .epi = e,
                   .batch = mod->count, .a_step = m * k, .b_step = k * n,
                   .packed_b_step = packed_step};
    return qmm_job_run(&job);
}

/* ---- A'B' from its residues, scaled back --------------------------------- */

typedef struct rebuild {
    const qmm_crt_moduli *mod;
    const qmm_crt_passes *passes;
    /* Rows row0 + [0, rows): modulus t's residues of row row0 + i at
     * res + t * plane + i * n. */
    const int8_t *res;
    size_t row0, plane, n, ldc;
    const int *row_exp, *col_exp;   /* C(i,j) = X(i,j) * 2^(row_exp(i) + col_exp(j)) */
    int col_min, col_max;
    qmm_crt_type type;
    void *c;
} rebuild;

static void rebuild_rows(void *context, size_t task, size_t lo, size_t hi)
{
    (void)task;
    const rebuild *r = context;
    double x[RUN];
    for (size_t i = r->row0 + lo; i < r->row0 + hi; i++) {
        const int ei = r->row_exp[i];
        const int fast = ei + r->col_min >= -1022 && ei + r->col_max <= 1022;
        for (size_t j0 = 0; j0 < r->n; j0 += RUN) {
            const size_t len = r->n - j0 < RUN ? r->n - j0 : RUN;
            r->passes->rebuild(r->res + (i - r->row0) * r->n + j0, r->plane, len, r->mod, x);
            const int *ce = r->col_exp + j0;
            if (fast)
                for (size_t jj = 0; jj < len; jj++)
                    x[jj] *= power_of_two(ei + ce[jj]);
            else
                for (size_t jj = 0; jj < len; jj++)
                    x[jj] = ldexp(x[jj], ei + ce[jj]);
            if (r->type == QMM_CRT_F64) {
                memcpy((double *)r->c + i * r->ldc + j0, x, len * sizeof *x);
            } else {
                float *out = (float *)r->c + i * r->ldc + j0;
                for (size_t jj = 0; jj < len; jj++)
                    out[jj] = (float)x[jj];
            }
        }
    }
}

/* ---- the call ------------------------------------------------------------ */

/* Rows of a block whose residues of every modulus fill about BLOCK_BYTES,
 * a multiple of the kernel's mr (at least one), or all m when fewer. */
static size_t block_rows(unsigned mr, unsigned moduli, size_t n, size_t m)
{
    size_t rows = bytes_or(&block_bytes_set, BLOCK_BYTES) / ((size_t)moduli * n) / mr * mr;
    rows = rows < mr ? mr : rows;
    return rows < m ? rows : m;
}

/* ceil(log2 k), k >= 1. */
static int ceil_log2(size_t k)
{
    int b = 0;
    while (b < 64 && ((size_t)1 << b) < k)
        b++;
    return b;
}

/* qmm.h's bits(count) at depth k: floor(log2 P) - 2 - ceil(log2 k). */
static int bits_for(unsigned count, size_t k)
{
    return qmm_crt_moduli_of(count)->bits - 2 - ceil_log2(k);
}

/* The fewest moduli whose P holds A'B' at depth k with one bit per side. */
static unsigned fewest_moduli(size_t k)
{
    unsigned count = 1;
    while (count < QMM_CRT_MAX_MODULI && bits_for(count, k) < 2)
        count++;
    return count;
}

qmm_status qmm_crt_gemm(qmm_crt_type type, size_t m, size_t n, size_t k, const void *a,
                        size_t lda, const void *b, size_t ldb, void *c, size_t ldc,
                        unsigned moduli)
{
    const size_t elem = elem_bytes(type);
    qmm_status st =
        qmm_float_gemm_check(m, n, k, a, lda, b, ldb, c, ldc, elem, QMM_PER_ROW_COL);
    if (st != QMM_OK || m == 0 || n == 0)
        return st;
    if (moduli < 1 || moduli > QMM_CRT_MAX_MODULI) {
        qmm_log("invalid argument: moduli = %u, need 1 to %d", moduli, QMM_CRT_MAX_MODULI);
        return QMM_ERR_INVALID_ARG;
    }
    if (k == 0) {
        qmm_float_gemm_zero(m, n, c, ldc, elem);
        return QMM_OK;
    }
    /* sum |A'||B'| < k 2^(alpha + beta) <= P / 2. */
    if (bits_for(moduli, k) < 2) {
        qmm_log("invalid argument: %u moduli cannot hold products of depth %zu; need at "
                "least %u", moduli, k, fewest_moduli(k));
        return QMM_ERR_INVALID_ARG;
    }
    /* Moduli past those that hold 2 MOST_BITS would add time, and a P far
     * above X would cost the rebuilt X its low bits: left out. */
    while (moduli > 1 && bits_for(moduli - 1, k) >= 2 * MOST_BITS)
        moduli--;
    const qmm_crt_moduli *mod = qmm_crt_moduli_of(moduli);
    const int bits = bits_for(moduli, k);
    const int alpha = bits / 2 < MOST_BITS ? bits / 2 : MOST_BITS;
    const int beta = bits - alpha < MOST_BITS ? bits - alpha : MOST_BITS;
    const qmm_kernel *kern = NULL;
    if ((st = qmm_choose_kernel(m, n, &kern)) != QMM_OK)
        return st;
    const int deep = k > QMM_EXACT_DEPTH;
    /* A matrix kernel runs the products a block of rows at a time, each
     * modulus's B packed once: the block's residues of A and of the products
     * for every modulus are made just before they are used, and stay in
     * cache. */
    qmm_blocking blk;
    size_t packed_stride = 0;
    if (kern->nr > 1 && !deep && qmm_blocking_init(&blk, kern, 1, n, k) == QMM_OK) {
        const size_t bytes = qmm_packed_bytes(&blk, QMM_PACKED_B);
        if (bytes != 0 && bytes <= (SIZE_MAX / 2) / QMM_CRT_MAX_MODULI)
            packed_stride = (bytes + QMM_PACK_MAX_ALIGN - 1) / QMM_PACK_MAX_ALIGN * QMM_PACK_MAX_ALIGN;
    }
    const size_t block = packed_stride != 0 ? block_rows(kern->mr, moduli, n, m) : m;
    /* B packed: its residues a strip of columns at a time, a strip per task
     * of a team of up to strip_tasks; else all at once. */
    size_t width = 0, strips = 0, strip_tasks = 0;
    if (packed_stride != 0) {
        width = bytes_or(&strip_bytes_set, STRIP_BYTES) / ((size_t)moduli * k) / kern->nr *
                kern->nr;
        width = width < kern->nr ? kern->nr : width;
        strips = qmm_ceil_div(n, width);
        const double worth = (double)k * (double)n * moduli / QMM_RANGES_SMALL_WORK;
        const size_t threads = qmm_get_num_threads();
        strip_tasks = worth < 1 ? 1 : worth < (double)threads ? (size_t)worth : threads;
        strip_tasks = strip_tasks < strips ? strip_tasks : strips;
    }
    /* m * k, k * n and m * n are spans of floats at least: no overflow. */
    const size_t sizes[] = {
        m * sizeof(int), n * sizeof(int), m * sizeof(qmm_crt_scale), n * sizeof(qmm_crt_scale),
        m * sizeof(double), n * sizeof(double),
        moduli * block * k, moduli * k * (packed_stride != 0 ? width * strip_tasks : n),
        moduli * block * n, moduli * packed_stride,
        deep ? m * n * sizeof(int32_t) : 0, deep ? m * n * sizeof(int64_t) : 0};
    enum { EA, EB, SA, SB, MA, MB, RA, RB, RC, PB, S32, S64, PARTS };
    void *part[PARTS];
    size_t got;
    void *mem = qmm_float_gemm_buffers(PARTS, sizes, part, &got);
    if (mem == NULL)
        return QMM_ERR_NO_MEMORY;
    int *ea = part[EA], *eb = part[EB];
    if ((st = line_exponents(type, a, lda, m, k, QMM_PER_ROW, part[MA], ea)) != QMM_OK ||
        (st = line_exponents(type, b, ldb, k, n, QMM_PER_COL, part[MB], eb)) != QMM_OK) {
        qmm_float_gemm_buffers_return(mem, got);
        return st;
    }
    /* Row i of A times 2^(alpha - E(i)), column j of B times 2^(beta - F(j));
     * C(i, j) = X * 2^(E(i) - alpha + F(j) - beta). */
    qmm_crt_scale *sa = part[SA], *sb = part[SB];
    int col_min = 0, col_max = 0;
    for (size_t i = 0; i < m; i++) {
        sa[i] = scale_of(alpha - ea[i]);
        ea[i] -= alpha;
    }
    for (size_t j = 0; j < n; j++) {
        sb[j] = scale_of(beta - eb[j]);
        eb[j] -= beta;
        col_min = j == 0 || eb[j] < col_min ? eb[j] : col_min;
        col_max = j == 0 || eb[j] > col_max ? eb[j] : col_max;
    }
    const qmm_crt_passes *passes = qmm_crt_passes_pick();
    residues res_b = {type, b, ldb, k, n, NULL, sb, mod, passes, part[RB], k * n};
    int8_t *ra = part[RA];
    const int8_t *rb = part[RB];
    unsigned char *pb = part[PB];
    if (packed_stride != 0) {
        b_strips bs = {res_b, width, strips, strip_tasks, kern, &blk, pb, packed_stride,
                       part[RB]};
        qmm_team team = qmm_team_join(strip_tasks);
        bs.tasks = team.threads;
        qmm_team_run(&team, bs.tasks, pack_strips, &bs);
        qmm_team_leave(&team);
    } else {
        qmm_ranges_for(k, (double)n * moduli, residue_rows, &res_b);
    }
    int8_t *rc = part[RC];
    for (size_t i0 = 0; i0 < m && st == QMM_OK; i0 += block) {
        const size_t rows = m - i0 < block ? m - i0 : block;
        residues res_a = {type, (const char *)a + i0 * lda * elem, lda, rows, k, sa + i0, NULL,
                          mod, passes, ra, rows * k};
        qmm_ranges_for(rows, (double)k * moduli, residue_rows, &res_a);
        st = residue_products(kern, passes, mod, rows, n, k, ra, rb, packed_stride ? pb : NULL,
                              packed_stride, rc, part[S32], part[S64]);
        if (st == QMM_OK) {
            rebuild r = {mod, passes, rc, i0, rows * n, n, ldc, ea, eb, col_min, col_max,
                         type, c};
            qmm_ranges_for(rows, (double)n * moduli, rebuild_rows, &r);
        }
    }
    qmm_float_gemm_buffers_return(mem, got);
    return st;
}

qmm_status qmm_dgemm_crt(size_t m, size_t n, size_t k, const double *a, size_t lda,
                         const double *b, size_t ldb, double *c, size_t ldc, unsigned moduli)
{
    return qmm_crt_gemm(QMM_CRT_F64, m, n, k, a, lda, b, ldb, c, ldc, moduli);
}

qmm_status qmm_sgemm_crt(size_t m, size_t n, size_t k, const float *a, size_t lda,
                         const float *b, size_t ldb, float *c, size_t ldc, unsigned moduli)
{
    return qmm_crt_gemm(QMM_CRT_F32, m, n, k, a, lda, b, ldb, c, ldc, moduli);
}
