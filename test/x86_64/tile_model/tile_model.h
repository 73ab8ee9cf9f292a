/*
 * A software model of the AMX tile registers and of the instructions the
 * AMX-INT8 kernel uses, after the Intel SDM (LDTILECFG, TILELOADD, TILEZERO,
 * TDPBSSD, TILESTORED, TILERELEASE; palette 1: 8 tiles of at most 16 rows of
 * 64 bytes), so that the kernel's logic runs on CPUs without AMX. Test code,
 * never part of the library.
 *
 * The state is per thread, as the registers are. Where the hardware would
 * fault (#GP, #UD) the model prints "tile model: <fault> in <instruction>:
 * <why>" on stderr and aborts: a fault is a bug of the caller. It is stricter
 * than the SDM in one place: a configuration with a nonzero start_row (the
 * restart point of an interrupted tile instruction, which the next load or
 * store would begin at) is refused, as no code of ours may set one.
 *
 * With QMM_TILE_MODEL defined, this header also stands in for <immintrin.h>:
 * the intrinsics' names become the model's, so that code written for the
 * hardware builds against the model unchanged. Tile numbers are constants
 * 0-7, strides are in bytes and may be negative.
 */
#ifndef QMM_TILE_MODEL_H
#define QMM_TILE_MODEL_H

#include <stddef.h>

/* The instructions, each named after its intrinsic without `_tile_`. */
void tile_model_loadconfig(const void *config);
void tile_model_release(void);
void tile_model_zero(int tile);
void tile_model_loadd(int tile, const void *base, ptrdiff_t stride);
void tile_model_stored(int tile, void *base, ptrdiff_t stride);
void tile_model_dpbssd(int dst, int a, int b);
void tile_model_dpbusd(int dst, int a, int b);

#if defined(QMM_TILE_MODEL)
#define _tile_loadconfig(config) tile_model_loadconfig(config)
#define _tile_release() tile_model_release()
#define _tile_zero(tile) tile_model_zero(tile)
#define _tile_loadd(tile, base, stride) tile_model_loadd(tile, base, stride)
#define _tile_stored(tile, base, stride) tile_model_stored(tile, base, stride)
#define _tile_dpbssd(dst, a, b) tile_model_dpbssd(dst, a, b)
#define _tile_dpbusd(dst, a, b) tile_model_dpbusd(dst, a, b)
#endif

/* What tests ask of the model. */

/* Whether this thread's tiles are configured (TILES_CONFIGURED). */
int tile_model_configured(void);

/* How many threads of the process hold configured tiles now: 0 after a
 * product whose every task released its tiles. */
int tile_model_threads_configured(void);

/* From now on, counts the tile loads (any thread) whose first row starts in
 * [lo, hi), and forgets the loads counted so far. */
void tile_model_watch(const void *lo, const void *hi);

/* The loads counted since the last tile_model_watch. */
size_t tile_model_watched_loads(void);

#endif
