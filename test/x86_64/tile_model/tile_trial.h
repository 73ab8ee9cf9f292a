/*
 * A random trial of the tile instructions: one configuration (the three
 * tiles of a TDPBSSD or TDPBUSD at random shapes within palette 1, the other tiles
 * unused or at random valid shapes), operands at random strides of either
 * sign, int8 values with -128 edges, accumulators near the ends of int32 so
 * that the sums wrap, then the sequence of TILE_TRIAL_SEQUENCE. The model's
 * self-test runs trials against a reference, the hardware comparison on the
 * instructions and on the model.
 */
#ifndef QMM_TILE_TRIAL_H
#define QMM_TILE_TRIAL_H

#include <stddef.h>
#include <stdint.h>

/* Room per row of every operand: 64 bytes and up to 16 of gap. */
enum { TILE_TRIAL_ROW_ROOM = 80, TILE_TRIAL_BYTES = 16 * TILE_TRIAL_ROW_ROOM };

/* The (dst, a, b) tile numbers a trial may use, as constants for the
 * intrinsics: X(index, dst, a, b) for each. */
#define TILE_TRIAL_TRIPLES(X) X(0, 4, 0, 2) X(1, 7, 1, 3) X(2, 0, 6, 5)

typedef struct tile_trial {
    _Alignas(64) uint8_t config[64];   /* the operand of ldtilecfg */
    unsigned triple;                   /* its index in TILE_TRIAL_TRIPLES */
    int dst, a, b;
    unsigned rows, quads, dwords;      /* C is rows x dwords, A rows x quads dwords */
    int zero_dst;                      /* tilezero C instead of loading it */
    unsigned repeats;                  /* the multiply-adds this many times */
    int a_u8;                          /* tdpbusd (A's bytes uint8), else tdpbssd */
    ptrdiff_t a_stride, b_stride, c_stride, out_stride;
    int8_t a_rows[TILE_TRIAL_BYTES], b_rows[TILE_TRIAL_BYTES];
    unsigned char c_rows[TILE_TRIAL_BYTES];  /* int32 accumulators */
} tile_trial;

/* A new random trial (testlib's generator). */
void tile_trial_new(tile_trial *t);

/* Where row 0 of an operand of `rows` rows, `stride` bytes apart, lies in
 * mem (the last row, for a negative stride). */
const void *tile_trial_row0(const void *mem, unsigned rows, ptrdiff_t stride);

/* Where the trial stores C into out (TILE_TRIAL_BYTES bytes). */
void *tile_trial_out_row0(const tile_trial *t, unsigned char *out);

/* The trial's sequence, on OP(name) for each instruction: tile_model_##name
 * on the model, _tile_##name on the hardware, whose intrinsics take the tile
 * numbers dst, a, b as constants. C goes to out (TILE_TRIAL_BYTES bytes);
 * bytes it does not store keep their value. The empty asm makes all 64 bytes
 * of the configuration reach memory before ldtilecfg (gcc's intrinsic names
 * only the first 8 as its input). */
#define TILE_TRIAL_SEQUENCE(OP, t, out, dst, a, b)                                      \
    do {                                                                                \
        __asm__ volatile("" : : "m"((t)->config));                                      \
        OP(loadconfig)((t)->config);                                                    \
        if ((t)->zero_dst)                                                              \
            OP(zero)(dst);                                                              \
        else                                                                            \
            OP(loadd)(dst, tile_trial_row0((t)->c_rows, (t)->rows, (t)->c_stride),       \
                      (t)->c_stride);                                                   \
        OP(loadd)(a, tile_trial_row0((t)->a_rows, (t)->rows, (t)->a_stride), (t)->a_stride); \
        OP(loadd)(b, tile_trial_row0((t)->b_rows, (t)->quads, (t)->b_stride),            \
                  (t)->b_stride);                                                       \
        for (unsigned r_ = 0; r_ < (t)->repeats; r_++)                                  \
            if ((t)->a_u8)                                                              \
                OP(dpbusd)(dst, a, b);                                                  \
            else                                                                        \
                OP(dpbssd)(dst, a, b);                                                  \
        OP(stored)(dst, tile_trial_out_row0(t, out), (t)->out_stride);                  \
        OP(release)();                                                                  \
    } while (0)

/* The sequence on the model. */
void tile_trial_run_model(const tile_trial *t, unsigned char *out);

/* What a trial should store: C into out (TILE_TRIAL_BYTES bytes), leaving
 * the bytes it does not store. */
typedef void tile_trial_fn(const tile_trial *t, unsigned char *out);

/* `count` new trials, each run on `expected` (named `source` in messages) and
 * on the model: every byte stored, and every byte left, must be the same, and
 * the model's tiles released after each. Returns count. */
long tile_trial_against_model(int count, tile_trial_fn *expected, const char *source);

#endif
