#include <string.h>

#include "support/testlib.h"
#include "test_amx_model.h"
#include "tile_model.h"
#include "tile_trial.h"

enum { TRIALS = 3000 };

/* The trial's C as the SDM defines it: for each row m and dword n of C, the
 * accumulator plus, per tdpbssd (tdpbusd), the sum over k of the four
 * products of sign-extended bytes (A's zero-extended)
 * a.row[m].byte[4k+i] * b.row[k].byte[4n+i], modulo 2^32; stored rows x
 * dwords, nothing else. */
static void reference(const tile_trial *t, unsigned char *out)
{
    const int8_t *a = tile_trial_row0(t->a_rows, t->rows, t->a_stride);
    const int8_t *b = tile_trial_row0(t->b_rows, t->quads, t->b_stride);
    const unsigned char *c = tile_trial_row0(t->c_rows, t->rows, t->c_stride);
    unsigned char *o = tile_trial_out_row0(t, out);
    for (unsigned m = 0; m < t->rows; m++)
        for (unsigned n = 0; n < t->dwords; n++) {
            int64_t dot = 0;
            for (unsigned k = 0; k < t->quads; k++)
                for (unsigned i = 0; i < 4; i++)
                {
                    const int8_t x = a[m * t->a_stride + 4 * k + i];
                    dot += (t->a_u8 ? (uint8_t)x : x) * b[k * t->b_stride + 4 * n + i];
                }
            uint32_t acc = 0;
            if (!t->zero_dst)
                memcpy(&acc, c + m * t->c_stride + 4 * n, 4);
            acc += (uint32_t)dot * t->repeats;
            memcpy(o + m * t->out_stride + 4 * n, &acc, 4);
        }
}

/* Configured by ldtilecfg with palette 1, counted once per thread, zeroed
 * by every ldtilecfg, back to the init state by palette 0 and tilerelease. */
static long life_cycle(void)
{
    _Alignas(64) uint8_t config[64] = {1};
    const uint8_t init[64] = {0};
    config[16] = 64;  /* tmm0: 16 rows of 64 bytes */
    config[48] = 16;
    int8_t rows[16 * 64], stored[16 * 64];
    for (size_t i = 0; i < sizeof rows; i++)
        rows[i] = test_rand_i8();
    CHECK(!tile_model_configured() && tile_model_threads_configured() == 0, "configured at start");
    tile_model_loadconfig(config);
    tile_model_loadconfig(config);
    CHECK(tile_model_configured() && tile_model_threads_configured() == 1,
          "ldtilecfg twice: configured %d, threads %d", tile_model_configured(),
          tile_model_threads_configured());
    tile_model_loadd(0, rows, 64);
    tile_model_stored(0, stored, 64);
    CHECK(memcmp(rows, stored, sizeof rows) == 0, "tileloadd then tilestored changed the rows");
    tile_model_loadconfig(config);
    tile_model_stored(0, stored, 64);
    CHECK(stored[0] == 0 && memcmp(stored, stored + 1, sizeof stored - 1) == 0,
          "ldtilecfg left tile data");
    tile_model_loadconfig(init);
    CHECK(!tile_model_configured() && tile_model_threads_configured() == 0,
          "palette 0 is not the init state");
    tile_model_loadconfig(config);
    tile_model_release();
    CHECK(!tile_model_configured() && tile_model_threads_configured() == 0,
          "tilerelease is not the init state");
    return 5;
}

long model_self_test(void)
{
    test_seed(0x414d58);
    return tile_trial_against_model(TRIALS, reference, "SDM's reference") + life_cycle();
}
