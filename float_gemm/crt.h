/*
 * Float and double GEMM by the Chinese remainder theorem on int8 products
 * (the Ozaki scheme II): what qmm_dgemm_crt and qmm_sgemm_crt share.
 *
 *  1. Each row of A and column of B is scaled by a power of two and rounded
 *     to integers A', B' of at most alpha and beta bits, alpha + beta chosen
 *     from the moduli so that every |A'B'| (indeed sum |A'||B'|) is below P/2.
 *  2. For each modulus p_t: A' and B' reduced to int8 residues (one pass over
 *     each operand for all moduli), one int8 GEMM whose output stage keeps
 *     the int32 sums' residues (output/epilogue.h: `modulus`), int8 again.
 *  3. A'B' rebuilt from the N residues (float_gemm/crt_moduli.h) and scaled
 *     back, one pass over C.
 * Every step is exact but the rounding of A and B to A', B' and of the last
 * pass to double, so the result is the same bits on every kernel, CPU and
 * thread count.
 */
#ifndef QMM_CRT_H
#define QMM_CRT_H

#include <stddef.h>

#include "qmm/qmm.h"

/* The element type of A, B and C. */
typedef enum qmm_crt_type { QMM_CRT_F32, QMM_CRT_F64 } qmm_crt_type;

/* C = A.B on `moduli` moduli, arguments as the public calls take them. */
qmm_status qmm_crt_gemm(qmm_crt_type type, size_t m, size_t n, size_t k, const void *a,
                        size_t lda, const void *b, size_t ldb, void *c, size_t ldc,
                        unsigned moduli);

/* For tests: the bytes that a block of A's rows and a strip of B's columns
 * fill with their residues of every modulus, so that small products take
 * the paths of several blocks and strips; 0 restores the sizes chosen for
 * the caches. */
void qmm_crt_set_block_bytes(size_t block, size_t strip);

#endif
