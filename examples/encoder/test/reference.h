/* The encoder's quantized graph recomputed in the test (reference.c). */
#ifndef QMM_ENCODER_TEST_REFERENCE_H
#define QMM_ENCODER_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "model_writer.h"

/* As encoder_hidden_states and encoder_embed, in double; per_token: the
 * activations quantized row by row (ENCODER_ACTIVATIONS_PER_TOKEN), else
 * sequence by sequence. */
void reference_hidden_states(const mw_model *m, int per_token, size_t count,
                             const size_t *offsets, const int32_t *ids, double *out);
void reference_embed(const mw_model *m, int per_token, size_t count, const size_t *offsets,
                     const int32_t *ids, double *out);

#endif
