/* The line passes compiled for AVX2 (-mavx2, cmake/kernels_x86_64.cmake):
 * the same operations on eight floats or four doubles per vector, so the
 * same bits. */
#include "../lines_instances.h"

#define QMM_LINES_FLT float
#define QMM_LINES_KEY int32_t
#define QMM_LINES_TABLE qmm_lines_f32_avx2
#include "../lines_body.h"

#define QMM_LINES_FLT double
#define QMM_LINES_KEY int64_t
#define QMM_LINES_TABLE qmm_lines_f64_avx2
#include "../lines_body.h"
