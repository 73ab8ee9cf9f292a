/* The output stage compiled for AVX2 (-mavx2, cmake/kernels_x86_64.cmake):
 * eight lanes per vector; the same operations, so the same bits. */
#define QMM_EPILOGUE_TILE_FN qmm_epilogue_tile_avx2
#include "../epilogue_tile.h"
