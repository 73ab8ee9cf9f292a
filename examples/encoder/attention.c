#include "attention.h"

#include <math.h>
#include <string.h>

#include "float_ops.h"

/* The score and value products in register blocks: BLOCK_ROWS queries at a
 * time against BLOCK_COLS keys (scores) or head dimensions (values), every
 * output a chain of fused multiply-adds over the shared dimension in index
 * order, started from zero. fmaf is one correctly rounded operation
 * everywhere (an instruction on arm64 and on x86 from AVX2 on, the C
 * library's exact routine on older x86), so the chains are the same bits on
 * every CPU, and the block sizes, unrolled whole so that the accumulators
 * stay in registers (6 x 16 floats: 12 AVX2 or 24 NEON registers), change
 * nothing but the speed. */
enum { BLOCK_ROWS = 6, BLOCK_COLS = 16 };
#define UNROLLED _Pragma("GCC unroll 16")

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

size_t attention_scratch_floats(size_t len, size_t head_size)
{
    return (head_size + BLOCK_ROWS) * round_up(len, BLOCK_COLS) + head_size +
           len * round_up(head_size, BLOCK_COLS);
}

/* vh (len x ldv): the head's values, contiguous and zero past head_size, so
 * that the value products stream them instead of striding through the QKV
 * rows. */
FLOAT_CLONES static void copy_values(const float *v, size_t ld, size_t len, size_t head_size,
                                     float *vh, size_t ldv)
{
    for (size_t j = 0; j < len; j++) {
        memcpy(vh + j * ldv, v + j * ld, head_size * sizeof *vh);
        for (size_t c = head_size; c < ldv; c++)
            vh[j * ldv + c] = 0.0f;
    }
}

/* kt (head_size x ldk): the keys transposed, zero past len. */
FLOAT_CLONES static void transpose_keys(const float *k, size_t ld, size_t len, size_t head_size,
                                        float *kt, size_t ldk)
{
    for (size_t d = 0; d < head_size; d++) {
        float *row = kt + d * ldk;
        for (size_t j = 0; j < len; j++)
            row[j] = k[j * ld + d];
        for (size_t j = len; j < ldk; j++)
            row[j] = 0.0f;
    }
}

/* s (BLOCK_ROWS x lds) = q (BLOCK_ROWS rows, given by pointer) . kt, then
 * times scale. */
FLOAT_CLONES static void scores_block(const float *const *q, const float *kt, size_t ldk,
                                      size_t head_size, float scale, float *s, size_t lds)
{
    for (size_t j0 = 0; j0 < ldk; j0 += BLOCK_COLS) {
        float acc[BLOCK_ROWS][BLOCK_COLS] = {{0}};
        for (size_t d = 0; d < head_size; d++) {
            const float *kd = kt + d * ldk + j0;
            UNROLLED for (int r = 0; r < BLOCK_ROWS; r++) {
                float qv = q[r][d];
                UNROLLED for (int c = 0; c < BLOCK_COLS; c++)
                    acc[r][c] = fmaf(qv, kd[c], acc[r][c]);
            }
        }
        UNROLLED for (int r = 0; r < BLOCK_ROWS; r++)
            UNROLLED for (int c = 0; c < BLOCK_COLS; c++)
                s[r * lds + j0 + c] = acc[r][c] * scale;
    }
}

/* out rows (by pointer, head_size wide) = p (BLOCK_ROWS x lds, len used) . vh
 * (len x ldv, copy_values'). */
FLOAT_CLONES static void values_block(const float *p, size_t lds, const float *vh, size_t ldv,
                                      size_t len, size_t head_size, float *const *out)
{
    for (size_t c0 = 0; c0 < head_size; c0 += BLOCK_COLS) {
        float acc[BLOCK_ROWS][BLOCK_COLS] = {{0}};
        for (size_t j = 0; j < len; j++) {
            const float *vj = vh + j * ldv + c0;
            UNROLLED for (int r = 0; r < BLOCK_ROWS; r++) {
                float pv = p[r * lds + j];
                UNROLLED for (int c = 0; c < BLOCK_COLS; c++)
                    acc[r][c] = fmaf(pv, vj[c], acc[r][c]);
            }
        }
        size_t n = head_size - c0 < BLOCK_COLS ? head_size - c0 : BLOCK_COLS;
        for (int r = 0; r < BLOCK_ROWS; r++)
            memcpy(out[r] + c0, acc[r], n * sizeof(float));
    }
}

void attention_rows(const float *q, size_t rows, const float *k, const float *v, size_t ld,
                    size_t len, size_t head_size, float scale, float *context, size_t ldc,
                    float *scratch)
{
    size_t ldk = round_up(len, BLOCK_COLS), ldv = round_up(head_size, BLOCK_COLS);
    float *kt = scratch, *s = kt + head_size * ldk, *dropped = s + BLOCK_ROWS * ldk;
    float *vh = dropped + head_size;
    transpose_keys(k, ld, len, head_size, kt, ldk);
    copy_values(v, ld, len, head_size, vh, ldv);
    for (size_t i0 = 0; i0 < rows; i0 += BLOCK_ROWS) {
        /* A short last block repeats its last row, whose result is dropped. */
        const float *qr[BLOCK_ROWS];
        float *out[BLOCK_ROWS];
        for (int r = 0; r < BLOCK_ROWS; r++) {
            size_t i = i0 + (size_t)r < rows ? i0 + (size_t)r : rows - 1;
            qr[r] = q + i * ld;
            out[r] = i0 + (size_t)r < rows ? context + i * ldc : dropped;
        }
        scores_block(qr, kt, ldk, head_size, scale, s, ldk);
        for (int r = 0; r < BLOCK_ROWS; r++)
            float_softmax(s + (size_t)r * ldk, len);
        values_block(s, ldk, vh, ldv, len, head_size, out);
    }
}
