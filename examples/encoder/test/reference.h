/* The encoder's quantized graph recomputed in the test (reference.c). */
#ifndef QMM_ENCODER_TEST_REFERENCE_H
#define QMM_ENCODER_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "model_writer.h"

/* As encoder_hidden_states and encoder_embed, in double. */
void reference_hidden_states(const mw_model *m, size_t count, const size_t *offsets,
                             const int32_t *ids, double *out);
void reference_embed(const mw_model *m, size_t count, const size_t *offsets, const int32_t *ids,
                     double *out);

#endif
