/* The gemmlowp peer, callable from C (gemmlowp_peer.cc). */
#ifndef QMM_GEMMLOWP_PEER_H
#define QMM_GEMMLOWP_PEER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads the calls below use (1 until this is called). */
void peer_gemmlowp_set_num_threads(int n);

/* C = (A + a_offset)(B + b_offset), uint8 m x k and k x n, int32 m x n, row-major,
 * exact; on up to the threads set above. */
void peer_gemmlowp_u8_i32(int m, int n, int k, const uint8_t *a, int a_offset,
                          const uint8_t *b, int b_offset, int32_t *c);

/* gemmlowp's TFLite-style output pipeline, in its order: bias, then
 * OutputStageScaleInt32ByFixedPointAndExponent (the fixed-point multiplier,
 * the exponent: positive shifts left; then the zero point added), then
 * OutputStageClamp to [min, max] and OutputStageSaturatingCastToUint8. */
typedef struct peer_gemmlowp_requant {
    const int32_t *bias;       /* one per row of C if bias_per_row, else per column */
    int bias_per_row;
    int32_t multiplier, exponent, zero_point, min, max;
} peer_gemmlowp_requant;

/* C = requant((A + a_offset)(B + b_offset)), uint8 operands and result, row-major;
 * on up to the threads set above. */
void peer_gemmlowp_u8_requant(int m, int n, int k, const uint8_t *a, int a_offset,
                              const uint8_t *b, int b_offset, const peer_gemmlowp_requant *q,
                              uint8_t *c);

#ifdef __cplusplus
}
#endif

#endif
