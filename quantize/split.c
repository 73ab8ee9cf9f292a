#include "split.h"

#include <math.h>
#include <stdlib.h>

#include "../compute/ranges.h"
#include "../platform/log.h"
#include "quantize.h"

/* Columns per step of a row: the digits' remainders stay on the stack. */
enum { SPLIT_BLOCK = 256 };

typedef struct split_pass {
    const qmm_split_job *job;
    const double *f1, *f2;   /* per line: 2^(7 - E) as two factors (each a double) */
} split_pass;

/* Digits of cols values, factors per column (fstep 1) or one for all (0). */
static void split_block(const double *x, size_t cols, const double *f1, const double *f2,
                        size_t fstep, unsigned slices, int8_t *out, ptrdiff_t slice_step)
{
    double w[SPLIT_BLOCK];
    /* x * 2^(7 - E) in (-128, 128), exact: two factors because 2^(7 - E)
     * alone may not be a double; bits lost to underflow lie far below the
     * last digit. */
    for (size_t j = 0; j < cols; j++)
        w[j] = (x[j] * f1[j * fstep]) * f2[j * fstep];
    for (unsigned u = 0; u < slices; u++) {
        int8_t *digits = out + (ptrdiff_t)u * slice_step;
        for (size_t j = 0; j < cols; j++) {
            const double d = (double)(int32_t)w[j];  /* toward zero */
            digits[j] = (int8_t)d;
            w[j] = (w[j] - d) * 128.0;               /* both exact */
        }
    }
}

static void split_task(void *context, size_t t, size_t lo, size_t hi)
{
    (void)t;
    const split_pass *p = context;
    const qmm_split_job *j = p->job;
    for (size_t i = lo; i < hi; i++) {
        const size_t line = j->per == QMM_PER_ROW ? i : 0;
        const size_t fstep = j->per == QMM_PER_COL;
        for (size_t c = 0; c < j->cols; c += SPLIT_BLOCK) {
            const size_t cols = j->cols - c < SPLIT_BLOCK ? j->cols - c : SPLIT_BLOCK;
            const size_t at = fstep ? c : line;
            split_block(j->x + i * j->ldx + c, cols, p->f1 + at, p->f2 + at, fstep, j->slices,
                        j->out + i * j->ldo + c, j->slice_step);
        }
    }
}

qmm_status qmm_split_run(const qmm_split_job *j)
{
    const size_t lines = qmm_quant_lines(j->per, j->rows, j->cols);
    double *buf = malloc(3 * lines * sizeof *buf);  /* lines <= PTRDIFF_MAX / 8 */
    if (buf == NULL) {
        qmm_log("out of memory: the scales of %zu lines", lines);
        return QMM_ERR_NO_MEMORY;
    }
    double *maxabs = buf, *f1 = buf + lines, *f2 = buf + 2 * lines;
    qmm_status st = qmm_quantize_max_abs(1, j->x, j->ldx, j->rows, j->cols, j->per, maxabs);
    if (st == QMM_OK) {
        for (size_t l = 0; l < lines; l++) {
            int e = 0;
            if (maxabs[l] != 0)
                (void)frexp(maxabs[l], &e);  /* maxabs = f 2^e, f in [0.5, 1) */
            j->exps[l] = e;
            const int h = 7 - e, h1 = h / 2;
            f1[l] = ldexp(1.0, h1);
            f2[l] = ldexp(1.0, h - h1);
        }
        split_pass p = {.job = j, .f1 = f1, .f2 = f2};
        qmm_ranges_for(j->rows, (double)j->cols * j->slices, split_task, &p);
    }
    free(buf);
    return st;
}
