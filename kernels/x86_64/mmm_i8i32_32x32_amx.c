/*
 * AMX-INT8 matrix kernel, 32x32 tile, exact.
 * Packing: A i8_kin64 (K-inner: each row's kp depths contiguous, kp a
 * multiple of 64), B i8_k4 (for each quad of depths, the 4 bytes of column
 * 0, then column 1, ... : 128 bytes per quad, pack/pack.h). A K-inner A panel
 * is the layout of a row-major A with lda == k, so a one-shot product reads
 * such an A in place (compute/loops.h); tileloadd takes any alignment and
 * any stride.
 *
 * Tiles (palette 1, 16 rows of at most 64 bytes each):
 *   tmm0, tmm1  A: rows 0-15 and 16-31, 64 depths (16 rows x 64 bytes, row stride kp)
 *   tmm2, tmm3  B: columns 0-15 and 16-31 of 16 quads (16 rows x 64 bytes,
 *               row stride 128: a quad's first and second 64 bytes)
 *   tmm4-tmm7   C: rows 0-15 x columns 0-15, rows 0-15 x 16-31, rows 16-31 x
 *               0-15, rows 16-31 x 16-31 (16 rows x 16 int32)
 * Per 64 depths: 4 tileloadd and 4 tdpbssd (16,384 MACs each), so 65,536
 * MACs per 8 instructions; each A tile serves both B tiles and each B tile
 * both A tiles (the arrangement of oneDNN's AMX GEMM and of llama.cpp).
 * `tdpbssd` multiplies int8 by int8 and adds the four products of each
 * 32-bit lane to the int32 accumulator, wrapping (no saturating form
 * exists): the exact sum modulo 2^32, with no offset to correct.
 *
 * The uint8-A twin (the *_u8a_* entry points, kernels/kernel.h) is the same
 * code with `tdpbusd`, which reads A's bytes as uint8: the exact sums of
 * uint8 A times int8 B, so that a uint8 A is read in place too.
 *
 * run_overlap runs the output stage of the tile before (compute/tile.c)
 * between the last tdpbssd and the first tilestored: vector code that the
 * core executes while the tile unit is still busy with the multiply-adds.
 *
 * The configuration is loaded once per task by the job hooks (begin: all 8
 * tiles full; end: tilerelease). Partial rows (run_rows) use the rows counts
 * of the configuration: A and C tiles of `rows` rows (top half) and rows - 16
 * (bottom half, unused below 17 rows), loaded for the tile and the full
 * configuration loaded back after it, so that padding rows are neither loaded,
 * multiplied nor stored.
 *
 * The software model of the tile instructions (test/x86_64/tile_model/)
 * compiles this file a second time, with QMM_TILE_MODEL defined and the
 * model's stand-ins for the intrinsics included first, so that the
 * suite runs its logic on CPUs without AMX.
 */
#include "../kernel.h"

#if !defined(QMM_TILE_MODEL)
#include <immintrin.h>
#endif

enum {
    MR = 32,
    NR = 32,
    HALF = 16,          /* rows of a tile */
    STEP = 64,          /* depths per A tile: 64 bytes per row */
    QUAD_BYTES = NR * 4, /* one quad of depths in the B panel */
    STEP_BYTES = STEP / 4 * QUAD_BYTES,
};

/* Check the signatures. */
qmm_ukernel_fn qmm_x86_64_mmm_i8i32_32x32_amx_run;
qmm_ukernel_rows_fn qmm_x86_64_mmm_i8i32_32x32_amx_run_rows;
qmm_kernel_hook_fn qmm_x86_64_mmm_i8i32_32x32_amx_begin, qmm_x86_64_mmm_i8i32_32x32_amx_end;
qmm_ukernel_overlap_fn qmm_x86_64_mmm_i8i32_32x32_amx_run_overlap;
qmm_ukernel_fn qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run;
qmm_ukernel_rows_fn qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run_rows;
qmm_ukernel_overlap_fn qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run_overlap;

/* The 64-byte operand of ldtilecfg, palette 1. */
typedef struct tile_config {
    uint8_t palette, start_row, reserved0[14];
    uint16_t colsb[8];
    uint8_t reserved1[16];
    uint8_t rows[8];
    uint8_t reserved2[8];
} tile_config;
_Static_assert(sizeof(tile_config) == 64, "ldtilecfg reads 64 bytes");

/* The configuration for the first `rows` rows of the tile (1..32). */
static tile_config config_for(unsigned rows)
{
    const uint8_t top = rows < HALF ? (uint8_t)rows : HALF;
    const uint8_t bottom = (uint8_t)(rows - top);
    /* An unused tile has 0 rows and 0 bytes per row: one without the other
     * is an invalid configuration. */
    const uint16_t bottom_colsb = bottom != 0 ? STEP : 0;
    return (tile_config){
        .palette = 1,
        .colsb = {STEP, bottom_colsb, STEP, STEP, STEP, STEP, bottom_colsb, bottom_colsb},
        .rows = {top, bottom, HALF, HALF, top, top, bottom, bottom},
    };
}

static void load_config(const tile_config *cfg)
{
    /* gcc's _tile_loadconfig names only the first 8 bytes of its operand as
     * an input: this makes the other 56 reach memory before it too. */
    __asm__ volatile("" : : "m"(*cfg));
    _tile_loadconfig(cfg);
}

void qmm_x86_64_mmm_i8i32_32x32_amx_begin(void)
{
    const tile_config full = config_for(MR);
    load_config(&full);
}

void qmm_x86_64_mmm_i8i32_32x32_amx_end(void)
{
    _tile_release();
}

/* C tile dst += A tile a times B tile b, A's bytes read as uint8 when
 * a_u8, else as int8. */
#define DP(a_u8, dst, a, b)                                                            \
    do {                                                                               \
        if (a_u8)                                                                      \
            _tile_dpbusd(dst, a, b);                                                   \
        else                                                                           \
            _tile_dpbssd(dst, a, b);                                                   \
    } while (0)

/* The tile's top 16 rows, and its bottom 16 too when `both`, into c (rows
 * rs_bytes apart, 32 contiguous int32 each), under a configuration whose A
 * and C tiles hold the rows wanted, running meanwhile (when not NULL) once
 * the multiply-adds are issued: the tile unit works through them while it
 * runs, and the stores wait for them. Inlined with constant `both` and
 * `a_u8` (A's bytes read as uint8). */
static inline __attribute__((always_inline)) void
tile(const int both, const int a_u8, size_t kp, const int8_t *a, const int8_t *b, int32_t *c,
     ptrdiff_t rs_bytes, const qmm_meanwhile *meanwhile)
{
    const int8_t *a_bottom = a + HALF * kp;
    _tile_zero(4);
    _tile_zero(5);
    if (both) {
        _tile_zero(6);
        _tile_zero(7);
    }
    for (size_t p = 0; p < kp; p += STEP, b += STEP_BYTES) {
        _tile_loadd(2, b, QUAD_BYTES);
        _tile_loadd(3, b + QUAD_BYTES / 2, QUAD_BYTES);
        _tile_loadd(0, a + p, kp);
        DP(a_u8, 4, 0, 2);
        DP(a_u8, 5, 0, 3);
        if (both) {
            _tile_loadd(1, a_bottom + p, kp);
            DP(a_u8, 6, 1, 2);
            DP(a_u8, 7, 1, 3);
        }
    }
    if (meanwhile != NULL)
        meanwhile->run(meanwhile->context);
    _tile_stored(4, c, rs_bytes);
    _tile_stored(5, c + HALF, rs_bytes);
    if (both) {
        int32_t *c_bottom = (int32_t *)((char *)c + HALF * rs_bytes);
        _tile_stored(6, c_bottom, rs_bytes);
        _tile_stored(7, c_bottom + HALF, rs_bytes);
    }
}

/* Rows [0, rows) of the tile into C: straight when C's columns are
 * contiguous, else through a local tile. */
static inline __attribute__((always_inline)) void
tile_rows(const int a_u8, unsigned rows, size_t kp, const int8_t *a, const int8_t *b, int32_t *c,
          ptrdiff_t rsc, ptrdiff_t csc, const qmm_meanwhile *meanwhile)
{
    int32_t t[MR * NR];
    int32_t *dst = csc == 1 ? c : t;
    ptrdiff_t rs_bytes = (csc == 1 ? rsc : NR) * (ptrdiff_t)sizeof *c;
    if (rows > HALF)
        tile(1, a_u8, kp, a, b, dst, rs_bytes, meanwhile);
    else
        tile(0, a_u8, kp, a, b, dst, rs_bytes, meanwhile);
    if (csc != 1)
        qmm_kernel_scatter_rows(rows, NR, t, c, rsc, csc);
}

/* The partial rows: the configuration for them around the tile. */
static inline __attribute__((always_inline)) void
partial_rows(const int a_u8, unsigned rows, size_t kp, const int8_t *a, const int8_t *b,
             int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    if (rows == 0 || rows >= MR)
        return; /* outside the contract (1 <= rows < MR): nothing written */
    const tile_config partial = config_for(rows);
    load_config(&partial);
    tile_rows(a_u8, rows, kp, a, b, c, rsc, csc, NULL);
    qmm_x86_64_mmm_i8i32_32x32_amx_begin();
}

void qmm_x86_64_mmm_i8i32_32x32_amx_run(size_t kp, const void *pa, const void *pb, int32_t *c,
                                         ptrdiff_t rsc, ptrdiff_t csc)
{
    tile_rows(0, MR, kp, pa, pb, c, rsc, csc, NULL);
}

void qmm_x86_64_mmm_i8i32_32x32_amx_run_overlap(size_t kp, const void *pa, const void *pb,
                                                 int32_t *c, ptrdiff_t rsc, ptrdiff_t csc,
                                                 const qmm_meanwhile *meanwhile)
{
    tile_rows(0, MR, kp, pa, pb, c, rsc, csc, meanwhile);
}

void qmm_x86_64_mmm_i8i32_32x32_amx_run_rows(unsigned rows, size_t kp, const void *pa,
                                              const void *pb, int32_t *c, ptrdiff_t rsc,
                                              ptrdiff_t csc)
{
    partial_rows(0, rows, kp, pa, pb, c, rsc, csc);
}

void qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run(size_t kp, const void *pa, const void *pb,
                                             int32_t *c, ptrdiff_t rsc, ptrdiff_t csc)
{
    tile_rows(1, MR, kp, pa, pb, c, rsc, csc, NULL);
}

void qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run_overlap(size_t kp, const void *pa, const void *pb,
                                                     int32_t *c, ptrdiff_t rsc, ptrdiff_t csc,
                                                     const qmm_meanwhile *meanwhile)
{
    tile_rows(1, MR, kp, pa, pb, c, rsc, csc, meanwhile);
}

void qmm_x86_64_mmm_i8i32_32x32_amx_u8a_run_rows(unsigned rows, size_t kp, const void *pa,
                                                  const void *pb, int32_t *c, ptrdiff_t rsc,
                                                  ptrdiff_t csc)
{
    partial_rows(1, rows, kp, pa, pb, c, rsc, csc);
}
