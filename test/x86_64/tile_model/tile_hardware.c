/*
 * The model against the AMX instructions themselves, on the same random
 * trials, bit for bit. The only file of the test built with -mamx-tile
 * -mamx-int8, and it executes no tile instruction unless qmm's dispatch
 * grants AMX (detected, not disabled, and Linux's permission for tile data
 * obtained), so that the test runs on every x86-64.
 */
#include <immintrin.h>
#include <string.h>

#include "platform/cpu.h"
#include "support/testlib.h"
#include "test_amx_model.h"
#include "tile_trial.h"

enum { TRIALS = 20000, SENTINEL = 0x5a };

static void run_hardware(const tile_trial *t, unsigned char *out)
{
#define HARDWARE_OP(name) _tile_##name
#define TRIPLE(index, dst, a, b)                                   \
    case index:                                                    \
        TILE_TRIAL_SEQUENCE(HARDWARE_OP, t, out, dst, a, b);       \
        break;
    switch (t->triple) {
        TILE_TRIAL_TRIPLES(TRIPLE)
    }
#undef TRIPLE
#undef HARDWARE_OP
}

static size_t first_difference(const unsigned char *x, const unsigned char *y, size_t n)
{
    size_t i = 0;
    while (i < n && x[i] == y[i])
        i++;
    return i;
}

long model_hardware_comparison(void)
{
    if (!qmm_cpu_has(QMM_CPU_AMX)) {
        printf("no AMX here: hardware comparison skipped\n");
        return 0;
    }
    test_seed(0x54444250);
    for (int i = 0; i < TRIALS; i++) {
        tile_trial t;
        tile_trial_new(&t);
        unsigned char on_hardware[TILE_TRIAL_BYTES], on_model[TILE_TRIAL_BYTES];
        memset(on_hardware, SENTINEL, sizeof on_hardware);
        memset(on_model, SENTINEL, sizeof on_model);
        run_hardware(&t, on_hardware);
        tile_trial_run_model(&t, on_model);
        const size_t at = first_difference(on_hardware, on_model, sizeof on_model);
        CHECK(at == sizeof on_model,
              "trial %d: tmm%d (%u x %u dwords) += tmm%d . tmm%d (%u quads) x %u%s: byte %zu "
              "is %#04x on the hardware, %#04x on the model", i, t.dst, t.rows, t.dwords, t.a,
              t.b, t.quads, t.repeats, t.zero_dst ? ", from zero" : "", at,
              at < sizeof on_model ? on_hardware[at] : 0, at < sizeof on_model ? on_model[at] : 0);
    }
    printf("hardware comparison: %d trials\n", TRIALS);
    return TRIALS;
}
