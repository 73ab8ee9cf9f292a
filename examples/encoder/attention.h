/* Self-attention of one head over one sequence, in float: some of its queries. */
#ifndef QMM_ENCODER_ATTENTION_H
#define QMM_ENCODER_ATTENTION_H

#include <stddef.h>

/* q: `rows` queries, k and v: len keys and values, each row head_size floats
 * and rows ld apart (the head's columns of the QKV product's output);
 * context: `rows` rows, ldc apart. scratch holds
 * attention_scratch_floats(len, head_size) floats. Each output is
 * sum_j p(i,j) v(j) with p the softmax over j of (q(i) . k(j)) * scale: every
 * dot product and every sum over j is a chain of fused multiply-adds in index
 * order, so the bits do not depend on the vector width. */
size_t attention_scratch_floats(size_t len, size_t head_size);

void attention_rows(const float *q, size_t rows, const float *k, const float *v, size_t ld,
                    size_t len, size_t head_size, float scale, float *context, size_t ldc,
                    float *scratch);

#endif
