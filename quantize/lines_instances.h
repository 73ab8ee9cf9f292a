/* The instances of the line passes (quantize/lines_body.h), by ISA. */
#ifndef QMM_QUANTIZE_LINES_INSTANCES_H
#define QMM_QUANTIZE_LINES_INSTANCES_H

#include "lines.h"

extern const qmm_lines qmm_lines_f32_generic, qmm_lines_f64_generic;
#if defined(__x86_64__)
extern const qmm_lines qmm_lines_f32_avx2, qmm_lines_f64_avx2;
#endif

#endif
