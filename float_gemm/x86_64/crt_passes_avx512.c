/* The Chinese-remainder passes compiled for AVX-512 F/BW/VL
 * (cmake/kernels_x86_64.cmake), chosen with the VNNI tier: eight doubles per
 * vector, the same operations, so the same bits. */
#define QMM_CRT_PASSES_TABLE qmm_crt_passes_avx512
#include "../crt_passes_body.h"
