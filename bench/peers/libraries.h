/* The libraries qmm-bench-peers times, one file each (library_<name>.c), and
 * the contenders that another one names as its peer or holds its speedup
 * against (contender.h). */
#ifndef QMM_PEERS_LIBRARIES_H
#define QMM_PEERS_LIBRARIES_H

#include "contender.h"

extern const library qmm_library;
extern const library onednn_library;
extern const library xnnpack_library;
extern const library gemmlowp_library;
extern const library openblas_library;

/* qmm_i8_i32, packing A and B included in every call: the speedups' default
 * reference. */
extern const contender qmm_one_shot;
/* A qmm plan with its weights B packed once. */
extern const contender qmm_plan_b;
/* A qmm plan with its weights packed once (B where the batch is the shorter
 * side), int8 out: XNNPACK qs8 FC's function. */
extern const contender qmm_plan_s8;
/* XNNPACK's fully-connected qs8 operator, int8 out, batch-major. */
extern const contender xnnpack_qs8_fc;
/* gemmlowp's TFLite-style output pipeline, uint8 out. */
extern const contender gemmlowp_requant;

#endif
