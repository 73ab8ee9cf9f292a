/*
 * The model against the AMX instructions themselves, on the same random
 * trials, bit for bit. The only file of the test built with -mamx-tile
 * -mamx-int8, and it executes no tile instruction unless qmm's dispatch
 * grants AMX (detected, not disabled, and Linux's permission for tile data
 * obtained), so that the test runs on every x86-64.
 */
#include <immintrin.h>

#include "platform/cpu.h"
#include "support/testlib.h"
#include "test_amx_model.h"
#include "tile_trial.h"

enum { TRIALS = 20000 };

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

long model_hardware_comparison(void)
{
    if (!qmm_cpu_has(QMM_CPU_AMX)) {
        printf("no AMX here: hardware comparison skipped\n");
        return 0;
    }
    test_seed(0x54444250);
    const long trials = tile_trial_against_model(TRIALS, run_hardware, "hardware");
    printf("hardware comparison: %ld trials\n", trials);
    return trials;
}
