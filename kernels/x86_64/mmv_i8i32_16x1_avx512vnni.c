/*
 * AVX-512 VNNI matrix-vector kernel, 16x1 tile, exact; only right for n == 1.
 * Packing: A i8_kin64 (K-inner: each row kp contiguous int8 values, kp a
 * multiple of 64), B i8_kin64 with one column (the vector, int8 as is).
 *
 * With n == 1 every byte of A is used once, so the cost is reading A: A stays
 * int8, and because its panel is the K-inner layout of a row-major A, a
 * one-shot product may hand the kernel A's own rows, at any alignment
 * (compute/loops.h). A zmm load that is not 64-byte aligned reads two cache
 * lines (a malloc'ed A starts 16 bytes past one: 1024x1024x1 one-shot took
 * 22.5 us with such loads on Zen5, 16 us with aligned ones), so A is
 * read in aligned chunks from the line holding the panel's start, s bytes
 * before it (the same s for all rows, as kp is a multiple of 64), against the
 * vector shifted by the same s: chunk j of b is b[64j - s, 64j - s + 64), a
 * masked load where it starts before b (head) or ends past it (tail), masked
 * bytes read as zero. The A bytes before and after the panel, in its first and
 * last lines (never another page), then meet zeros. When s > 0 a row takes
 * kp/64 + 1 chunks.
 *
 * Per chunk of 64 depths: one load of the vector chunk (L1), and per row one
 * aligned zmm load of A folded into one `vpxord` with 0x80 bytes (a + 128 as
 * an unsigned byte) and one `vpdpbusd` into that row's accumulator (16 int32
 * lanes, each the sum of 4 products): 2 vector instructions per 64 MACs. One
 * more `vpdpbusd` of 1-bytes by the vector accumulates its sum for the
 * compensation; with the prefetches and the loop's scalar work, a chunk of
 * 16 rows (1024 MACs) is 54 instructions, 0.053 per MAC. Registers:
 * accumulators zmm0-15, the sum of b zmm16, the vector zmm30, the xor'ed A
 * zmm31, two constants. The 16 rows' horizontal sums are reduced together
 * once at the end, a transpose-and-add tree of 45 instructions, and the
 * vector's sum is subtracted from all 16 at once.
 * Sixteen rows share each vector load and keep sixteen independent
 * accumulation chains and streams of A in flight.
 *
 * A GEMV is bound by how fast A arrives (1 MB in about 10 us from L2/L3 on
 * Zen5, against 3.5 ns per chunk of 16 rows from L1). Each chunk also
 * prefetches 1 KB of the next 16 rows (the next panel when panels are back
 * to back, packed or in place; prefetches never fault): measured 10-20%
 * faster on a 1 MB A that 16-32 MB of other traffic had pushed out to
 * memory, the same with A in L2 or L3. Every other line is enough (the L2
 * fetches adjacent lines in pairs): 1-4% faster than all 16.
 *
 * Exactness: vpdpbusd multiplies an unsigned byte by a signed byte, exactly,
 * and adds the four products to the lane without saturation (never the
 * saturating vpdpbusds), wrapping modulo 2^32. With u = a xor 0x80 = a + 128,
 * sum u*b = sum a*b + 128 * sum b, so each row's sum minus 128 * sum b (the
 * same for every row) is sum a*b modulo 2^32; every step is ring arithmetic
 * modulo 2^32, -128 included. Zeros of b (padding, masked bytes) add 0 to both.
 */
#include <immintrin.h>
#include <stdint.h>

#include "../kernel.h"

enum { MR = 16 };

qmm_ukernel_fn qmm_x86_64_mmv_i8i32_16x1_avx512vnni_run;  /* checks the signature */

/* Lane i of the result is the sum of the 16 lanes of v[i] (modulo 2^32).
 * Each level halves the vectors by adding two interleavings of pairs: lanes
 * then hold partial sums of 2, 4, 8 and finally 16 rows in order. */
static inline __m512i reduce16(const __m512i v[MR])
{
    __m512i s2[8], s4[4], s8[2];
    for (int j = 0; j < 8; j++)  /* per 128-bit lane: rows 2j, 2j+1, 2j, 2j+1 */
        s2[j] = _mm512_add_epi32(_mm512_unpacklo_epi32(v[2 * j], v[2 * j + 1]),
                                 _mm512_unpackhi_epi32(v[2 * j], v[2 * j + 1]));
    for (int j = 0; j < 4; j++)  /* per 128-bit lane: rows 4j .. 4j+3 */
        s4[j] = _mm512_add_epi32(_mm512_unpacklo_epi64(s2[2 * j], s2[2 * j + 1]),
                                 _mm512_unpackhi_epi64(s2[2 * j], s2[2 * j + 1]));
    for (int j = 0; j < 2; j++)  /* 128-bit lanes: rows 8j..8j+3 twice, 8j+4..8j+7 twice */
        s8[j] = _mm512_add_epi32(_mm512_shuffle_i32x4(s4[2 * j], s4[2 * j + 1], 0x88),
                                 _mm512_shuffle_i32x4(s4[2 * j], s4[2 * j + 1], 0xdd));
    return _mm512_add_epi32(_mm512_shuffle_i32x4(s8[0], s8[1], 0x88),
                            _mm512_shuffle_i32x4(s8[0], s8[1], 0xdd));
}

/* One row of one chunk: A at `row` (an address in the asm operands' syntax)
 * xor'ed into zmm31, times the vector chunk in zmm30, into zmm<acc>. */
#define ROW_ASM(row, acc)                                                              \
    "vpxord " row ", %[bias], %%zmm31\n\t"                                            \
    "vpdpbusd %%zmm30, %%zmm31, %%zmm" #acc "\n\t"

/* Four rows from base g: at offsets 0, kp, 2 kp and 3 kp. */
#define ROWS4_ASM(g, a0, a1, a2, a3)                                                   \
    ROW_ASM("(%[" #g "])", a0) ROW_ASM("(%[" #g "],%[kp],1)", a1)                    \
    ROW_ASM("(%[" #g "],%[kp],2)", a2) ROW_ASM("(%[" #g "],%[kp3],1)", a3)

/* Prefetch of the line at byte d from %[pf], in the next panel. */
#define PF_ASM(d) "prefetcht0 " #d "(%[pf])\n\t"
#define ZERO_ASM(r) "vpxord %%xmm" #r ", %%xmm" #r ", %%xmm" #r "\n\t"
#define STORE_ASM(r) "vmovdqa64 %%zmm" #r ", " #r "*64(%[v])\n\t"

void qmm_x86_64_mmv_i8i32_16x1_avx512vnni_run(size_t kp, const void *pa, const void *pb,
                                               int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    (void)csc;
    const unsigned s = (unsigned)((uintptr_t)pa % 64);
    /* Addresses as integers: they may point before the operands. */
    uintptr_t g0 = (uintptr_t)pa - s, g1 = g0 + 4 * kp, g2 = g0 + 8 * kp, g3 = g0 + 12 * kp;
    uintptr_t b = (uintptr_t)pb - s, pf = g0 + MR * kp;
    const size_t kp3 = 3 * kp;
    size_t n = kp == 0 ? 0 : kp / 64 + (s != 0);
    /* Bytes of the first and the last chunk of the vector that are b's. */
    const uint64_t head = ~0ull << s, tail = s == 0 ? ~0ull : (1ull << s) - 1;
    uint64_t t;
    const __m512i bias = _mm512_set1_epi8(-128), ones = _mm512_set1_epi8(1);
    /* v[i]: row i's accumulator (zmm<i> in the loop); v[16]: the sum of b
     * (zmm16). The loop is assembly, as in the AVX2 kernels: given intrinsics,
     * gcc copies every accumulator through another register on each step, and
     * an asm statement per step would need more than gcc's 30 operands. */
    __m512i v[MR + 1];
    __asm__ volatile("vpxord %%xmm16, %%xmm16, %%xmm16\n\t"
            ZERO_ASM(0) ZERO_ASM(1) ZERO_ASM(2) ZERO_ASM(3) ZERO_ASM(4) ZERO_ASM(5)
            ZERO_ASM(6) ZERO_ASM(7) ZERO_ASM(8) ZERO_ASM(9) ZERO_ASM(10) ZERO_ASM(11)
            ZERO_ASM(12) ZERO_ASM(13) ZERO_ASM(14) ZERO_ASM(15)
            "kmovq %[head], %%k1\n\t"
            "test %[n], %[n]\n\t"
            "jz 2f\n\t"
            "1:\n\t"
            "vmovdqu8 (%[b]), %%zmm30%{%%k1%}%{z%}\n\t"
            "vpdpbusd %%zmm30, %[ones], %%zmm16\n\t"
            ROWS4_ASM(g0, 0, 1, 2, 3) ROWS4_ASM(g1, 4, 5, 6, 7)
            ROWS4_ASM(g2, 8, 9, 10, 11) ROWS4_ASM(g3, 12, 13, 14, 15)
            PF_ASM(0) PF_ASM(128) PF_ASM(256) PF_ASM(384) PF_ASM(512) PF_ASM(640)
            PF_ASM(768) PF_ASM(896)
            "add $1024, %[pf]\n\t"
            "add $64, %[b]\n\t"
            "add $64, %[g0]\n\t"
            "add $64, %[g1]\n\t"
            "add $64, %[g2]\n\t"
            "add $64, %[g3]\n\t"
            "mov $-1, %[t]\n\t"       /* the next chunk's mask: all of it, */
            "cmp $2, %[n]\n\t"
            "cmove %[tail], %[t]\n\t" /* or the tail if it is the last */
            "kmovq %[t], %%k1\n\t"
            "dec %[n]\n\t"
            "jnz 1b\n\t"
            "2:\n\t"
            STORE_ASM(0) STORE_ASM(1) STORE_ASM(2) STORE_ASM(3) STORE_ASM(4) STORE_ASM(5)
            STORE_ASM(6) STORE_ASM(7) STORE_ASM(8) STORE_ASM(9) STORE_ASM(10) STORE_ASM(11)
            STORE_ASM(12) STORE_ASM(13) STORE_ASM(14) STORE_ASM(15) STORE_ASM(16)
            : [b] "+r"(b), [g0] "+r"(g0), [g1] "+r"(g1), [g2] "+r"(g2),
              [g3] "+r"(g3), [n] "+r"(n), [t] "=&r"(t), [pf] "+r"(pf)
            : [v] "r"(v), [kp] "r"(kp), [kp3] "r"(kp3), [head] "r"(head), [tail] "r"(tail),
              [bias] "v"(bias), [ones] "v"(ones)
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
              "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16",
              "xmm30", "xmm31", "k1", "cc", "memory"); /* reads the panels, writes v */
    /* Every lane: the sum of b's lanes (vector adds: modulo 2^32), times 128. */
    __m512i bsum = v[MR];
    bsum = _mm512_add_epi32(bsum, _mm512_shuffle_i32x4(bsum, bsum, 0x4e));
    bsum = _mm512_add_epi32(bsum, _mm512_shuffle_i32x4(bsum, bsum, 0xb1));
    bsum = _mm512_add_epi32(bsum, _mm512_shuffle_epi32(bsum, _MM_PERM_BADC));
    bsum = _mm512_add_epi32(bsum, _mm512_shuffle_epi32(bsum, _MM_PERM_CDAB));
    __m512i sums = _mm512_sub_epi32(reduce16(v), _mm512_slli_epi32(bsum, 7));
    if (rsc == 1) {
        _mm512_storeu_si512(c, sums);
        return;
    }
    int32_t t32[MR];
    _mm512_storeu_si512(t32, sums);
    for (int i = 0; i < MR; i++)
        c[i * rsc] = t32[i];
}
