#include "tile_trial.h"

#include <string.h>

#include "support/testlib.h"
#include "tile_model.h"

static const int triples[][3] = {
#define TRIPLE(index, dst, a, b) [index] = {dst, a, b},
    TILE_TRIAL_TRIPLES(TRIPLE)
#undef TRIPLE
};

/* 1..max, each end a quarter of the time: full and one-row tiles are where
 * layouts break. */
static unsigned size_upto(unsigned max)
{
    switch (test_rand_below(4)) {
    case 0:
        return 1;
    case 1:
        return max;
    default:
        return 1 + (unsigned)test_rand_below(max);
    }
}

/* A row stride of either sign for rows of `bytes` bytes, with a gap of 0-16
 * bytes in steps of `unit`. */
static ptrdiff_t stride_for(unsigned bytes, unsigned unit)
{
    const size_t gap = test_rand_below((TILE_TRIAL_ROW_ROOM - 64) / unit + 1) * unit;
    const ptrdiff_t s = (ptrdiff_t)(bytes + gap);
    return test_rand_below(2) ? -s : s;
}

static void configure(tile_trial *t, int tile, unsigned rows, unsigned colsb)
{
    t->config[16 + 2 * tile] = (uint8_t)colsb;
    t->config[17 + 2 * tile] = (uint8_t)(colsb >> 8);
    t->config[48 + tile] = (uint8_t)rows;
}

typedef enum byte_fill {
    BYTES_ANY,        /* the full int8 range */
    BYTES_MIN,        /* -128 everywhere: the largest products */
    BYTES_MIN_MAX,    /* -128 in A, 127 in B */
    BYTES_SOME_MIN,   /* random with a quarter of -128 */
    BYTE_FILLS
} byte_fill;

static int8_t byte_for(byte_fill f, int in_a)
{
    switch (f) {
    case BYTES_MIN:
        return -128;
    case BYTES_MIN_MAX:
        return in_a ? -128 : 127;
    case BYTES_SOME_MIN:
        return test_rand_below(4) == 0 ? -128 : test_rand_i8();
    default:
        return test_rand_i8();
    }
}

/* An accumulator a few million from either end of int32, or anywhere. */
static int32_t accumulator(void)
{
    const uint32_t near = (uint32_t)test_rand_below(1u << 22);
    switch (test_rand_below(3)) {
    case 0:
        return (int32_t)(INT32_MAX - near);
    case 1:
        return (int32_t)(INT32_MIN + (int32_t)near);
    default:
        return (int32_t)(uint32_t)test_rand();
    }
}

void tile_trial_new(tile_trial *t)
{
    memset(t, 0, sizeof *t);
    t->triple = (unsigned)test_rand_below(sizeof triples / sizeof triples[0]);
    t->dst = triples[t->triple][0];
    t->a = triples[t->triple][1];
    t->b = triples[t->triple][2];
    t->rows = size_upto(16);
    t->quads = size_upto(16);
    t->dwords = size_upto(16);
    t->zero_dst = test_rand_below(4) == 0;
    t->repeats = 1 + (unsigned)test_rand_below(3);
    t->a_u8 = test_rand_below(2) == 0;
    t->config[0] = 1;
    for (int tile = 0; tile < 8; tile++)
        if (test_rand_below(2))
            configure(t, tile, size_upto(16), size_upto(64));
    configure(t, t->dst, t->rows, 4 * t->dwords);
    configure(t, t->a, t->rows, 4 * t->quads);
    configure(t, t->b, t->quads, 4 * t->dwords);
    t->a_stride = stride_for(4 * t->quads, 1);
    t->b_stride = stride_for(4 * t->dwords, 1);
    /* Whole dwords, so that C's rows hold the accumulators drawn below. */
    t->c_stride = stride_for(4 * t->dwords, 4);
    t->out_stride = stride_for(4 * t->dwords, 1);
    const byte_fill f = (byte_fill)test_rand_below(BYTE_FILLS);
    for (size_t i = 0; i < TILE_TRIAL_BYTES; i++) {
        t->a_rows[i] = byte_for(f, 1);
        t->b_rows[i] = byte_for(f, 0);
    }
    for (size_t i = 0; i < TILE_TRIAL_BYTES; i += 4) {
        int32_t acc = accumulator();
        memcpy(t->c_rows + i, &acc, 4);
    }
}

static ptrdiff_t row0_offset(unsigned rows, ptrdiff_t stride)
{
    return stride < 0 ? (ptrdiff_t)(rows - 1) * -stride : 0;
}

const void *tile_trial_row0(const void *mem, unsigned rows, ptrdiff_t stride)
{
    return (const char *)mem + row0_offset(rows, stride);
}

void *tile_trial_out_row0(const tile_trial *t, unsigned char *out)
{
    return out + row0_offset(t->rows, t->out_stride);
}

void tile_trial_run_model(const tile_trial *t, unsigned char *out)
{
#define MODEL_OP(name) tile_model_##name
    TILE_TRIAL_SEQUENCE(MODEL_OP, t, out, t->dst, t->a, t->b);
#undef MODEL_OP
}

static size_t first_difference(const unsigned char *x, const unsigned char *y, size_t n)
{
    size_t i = 0;
    while (i < n && x[i] == y[i])
        i++;
    return i;
}

long tile_trial_against_model(int count, tile_trial_fn *expected, const char *source)
{
    enum { SENTINEL = 0x5a };  /* in the bytes no one should store */
    for (int i = 0; i < count; i++) {
        tile_trial t;
        tile_trial_new(&t);
        unsigned char want[TILE_TRIAL_BYTES], got[TILE_TRIAL_BYTES];
        memset(want, SENTINEL, sizeof want);
        memset(got, SENTINEL, sizeof got);
        expected(&t, want);
        tile_trial_run_model(&t, got);
        const size_t at = first_difference(want, got, sizeof got);
        CHECK(at == sizeof got,
              "trial %d: %s tmm%d (%u x %u dwords) += tmm%d . tmm%d (%u quads) x %u%s: byte %zu "
              "is %#04x on the %s, %#04x on the model", i, t.a_u8 ? "tdpbusd" : "tdpbssd",
              t.dst, t.rows, t.dwords, t.a, t.b, t.quads, t.repeats,
              t.zero_dst ? ", from zero" : "", at,
              at < sizeof got ? want[at] : 0, source, at < sizeof got ? got[at] : 0);
        CHECK(!tile_model_configured(), "trial %d: tiles still configured after tilerelease", i);
    }
    return count;
}
