/* The Chinese-remainder passes compiled for AVX2 (-mavx2,
 * cmake/kernels_x86_64.cmake): four doubles per vector, the same operations,
 * so the same bits. */
#define QMM_CRT_PASSES_TABLE qmm_crt_passes_avx2
#include "../crt_passes_body.h"
