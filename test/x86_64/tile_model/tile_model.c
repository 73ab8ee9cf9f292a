#include "tile_model.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Palette 1, the only one: CPUID leaf 0x1D's limits. */
enum { TILES = 8, MAX_ROWS = 16, MAX_COLSB = 64, CONFIG_BYTES = 64 };

typedef struct tile_state {
    uint8_t palette;  /* 0: the init state, TILES_CONFIGURED == 0 */
    uint8_t rows[TILES];
    uint16_t colsb[TILES];
    int8_t data[TILES][MAX_ROWS][MAX_COLSB];
} tile_state;

static _Thread_local tile_state state;

static atomic_int threads_configured;
static atomic_uintptr_t watch_lo, watch_hi;
static atomic_size_t watched_loads;

static _Noreturn __attribute__((format(printf, 3, 4))) void
fault(const char *kind, const char *instruction, const char *why, ...)
{
    va_list ap;
    va_start(ap, why);
    fprintf(stderr, "tile model: %s in %s: ", kind, instruction);
    vfprintf(stderr, why, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* The init state: no configuration, every tile zero. */
static void init_state(void)
{
    if (state.palette != 0)
        atomic_fetch_sub(&threads_configured, 1);
    memset(&state, 0, sizeof state);
}

void tile_model_loadconfig(const void *config)
{
    static const char in[] = "ldtilecfg";
    static const uint8_t reserved[][2] = {{2, 16}, {32, 48}, {56, 64}};
    uint8_t cfg[CONFIG_BYTES];
    memcpy(cfg, config, sizeof cfg);
    if (cfg[0] == 0) {
        init_state();
        return;
    }
    if (cfg[0] != 1)
        fault("#GP", in, "palette %u (palette 1 is the only one)", cfg[0]);
    if (cfg[1] != 0)
        fault("#GP", in, "start_row %u (refused by the model: nothing of ours restarts a tile "
                         "instruction)", cfg[1]);
    for (size_t r = 0; r < sizeof reserved / sizeof reserved[0]; r++)
        for (unsigned i = reserved[r][0]; i < reserved[r][1]; i++)
            if (cfg[i] != 0)
                fault("#GP", in, "reserved byte %u is %u", i, cfg[i]);
    uint8_t rows[TILES];
    uint16_t colsb[TILES];
    for (int t = 0; t < TILES; t++) {
        rows[t] = cfg[48 + t];
        colsb[t] = (uint16_t)(cfg[16 + 2 * t] | cfg[17 + 2 * t] << 8);
        if (rows[t] > MAX_ROWS)
            fault("#GP", in, "tmm%d has %u rows (at most %d)", t, rows[t], MAX_ROWS);
        if (colsb[t] > MAX_COLSB)
            fault("#GP", in, "tmm%d has %u bytes per row (at most %d)", t, colsb[t], MAX_COLSB);
        if ((rows[t] == 0) != (colsb[t] == 0))
            fault("#GP", in, "tmm%d has %u rows of %u bytes: an unused tile has neither", t,
                  rows[t], colsb[t]);
    }
    init_state();
    state.palette = 1;
    memcpy(state.rows, rows, sizeof rows);
    memcpy(state.colsb, colsb, sizeof colsb);
    atomic_fetch_add(&threads_configured, 1);
}

void tile_model_release(void)
{
    init_state();
}

/* The #UD conditions of every tile operand: tiles configured, and this one
 * among those the configuration uses. */
static void require_tile(const char *instruction, int tile)
{
    if (state.palette == 0)
        fault("#UD", instruction, "tiles not configured");
    if (tile < 0 || tile >= TILES)
        fault("#UD", instruction, "tmm%d does not exist", tile);
    if (state.rows[tile] == 0)
        fault("#UD", instruction, "tmm%d is unused in the configuration", tile);
}

void tile_model_zero(int tile)
{
    require_tile("tilezero", tile);
    memset(state.data[tile], 0, sizeof state.data[tile]);
}

void tile_model_loadd(int tile, const void *base, ptrdiff_t stride)
{
    require_tile("tileloadd", tile);
    const uintptr_t first = (uintptr_t)base;
    if (first >= atomic_load_explicit(&watch_lo, memory_order_relaxed) &&
        first < atomic_load_explicit(&watch_hi, memory_order_relaxed))
        atomic_fetch_add_explicit(&watched_loads, 1, memory_order_relaxed);
    memset(state.data[tile], 0, sizeof state.data[tile]);
    for (unsigned r = 0; r < state.rows[tile]; r++)
        memcpy(state.data[tile][r], (const char *)base + (ptrdiff_t)r * stride,
               state.colsb[tile]);
}

void tile_model_stored(int tile, void *base, ptrdiff_t stride)
{
    require_tile("tilestored", tile);
    for (unsigned r = 0; r < state.rows[tile]; r++)
        memcpy((char *)base + (ptrdiff_t)r * stride, state.data[tile][r], state.colsb[tile]);
}

/* The SDM's exception list of TDPBSSD and TDPBUSD (class AMX-E4) but for the limits of
 * the multiplier (16 rows of B, 64 bytes per row of C and B), which palette
 * 1's own limits already keep. */
static void check_dpbssd(const char *in, int dst, int a, int b)
{
    if (dst == a || dst == b || a == b)
        fault("#UD", in, "tmm%d, tmm%d, tmm%d: the three tiles must differ", dst, a, b);
    require_tile(in, dst);
    require_tile(in, a);
    require_tile(in, b);
    if (state.colsb[dst] % 4 != 0 || state.colsb[a] % 4 != 0 || state.colsb[b] % 4 != 0)
        fault("#UD", in, "bytes per row %u, %u, %u: not all whole dwords", state.colsb[dst],
              state.colsb[a], state.colsb[b]);
    if (state.colsb[dst] != state.colsb[b])
        fault("#UD", in, "tmm%d has %u bytes per row, tmm%d %u", dst, state.colsb[dst], b,
              state.colsb[b]);
    if (state.rows[dst] != state.rows[a])
        fault("#UD", in, "tmm%d has %u rows, tmm%d %u", dst, state.rows[dst], a, state.rows[a]);
    if (state.colsb[a] / 4 != state.rows[b])
        fault("#UD", in, "tmm%d has %u dwords per row, tmm%d %u rows", a, state.colsb[a] / 4, b,
              state.rows[b]);
}

/* TDPBSSD, or TDPBUSD (a_u8: A's bytes read as uint8). */
static void dot_products(const char *in, int a_u8, int dst, int a, int b)
{
    check_dpbssd(in, dst, a, b);
    const unsigned rows = state.rows[dst], n = state.colsb[dst] / 4u, k = state.colsb[a] / 4u;
    for (unsigned m = 0; m < rows; m++) {
        /* The accumulators wrap modulo 2^32, as the instruction's do. */
        uint32_t acc[MAX_COLSB / 4] = {0};
        memcpy(acc, state.data[dst][m], 4 * n);
        for (unsigned q = 0; q < k; q++) {
            const int8_t *x = &state.data[a][m][4 * q];
            int xs[4];
            for (int t = 0; t < 4; t++)
                xs[t] = a_u8 ? (uint8_t)x[t] : x[t];
            const int8_t *y = state.data[b][q];
            for (unsigned j = 0; j < n; j++)
                acc[j] += (uint32_t)(xs[0] * y[4 * j] + xs[1] * y[4 * j + 1] +
                                     xs[2] * y[4 * j + 2] + xs[3] * y[4 * j + 3]);
        }
        /* The row's bytes past colsb are zeroed (write_row_and_zero). */
        memcpy(state.data[dst][m], acc, sizeof acc);
    }
    /* And the rows past the tile's (zero_upper_rows). */
    for (unsigned m = rows; m < MAX_ROWS; m++)
        memset(state.data[dst][m], 0, sizeof state.data[dst][m]);
}

void tile_model_dpbssd(int dst, int a, int b)
{
    dot_products("tdpbssd", 0, dst, a, b);
}

void tile_model_dpbusd(int dst, int a, int b)
{
    dot_products("tdpbusd", 1, dst, a, b);
}

int tile_model_configured(void)
{
    return state.palette != 0;
}

int tile_model_threads_configured(void)
{
    return atomic_load(&threads_configured);
}

void tile_model_watch(const void *lo, const void *hi)
{
    atomic_store(&watch_lo, (uintptr_t)lo);
    atomic_store(&watch_hi, (uintptr_t)hi);
    atomic_store(&watched_loads, 0);
}

size_t tile_model_watched_loads(void)
{
    return atomic_load(&watched_loads);
}
