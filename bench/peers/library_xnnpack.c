/* XNNPACK's fully-connected qs8 operator: input zero point, symmetric
 * weights, int32 bias, one float requantization scale (fp32, ties to even),
 * output zero point, int8 out over its whole range; weights packed when the
 * operator is created, outside the timing. The batch is C's smaller side:
 * batch m (input A, weights B) or batch n (input B^T, weights A). */
#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <xnnpack.h>

#include "libraries.h"
#include "xmalloc.h"

/* NULL for one thread: XNNPACK then runs on the calling thread. */
static pthreadpool_t pool;

static int xnnpack_start(size_t threads, int avx2)
{
    (void)avx2;
    if (threads == 1)
        return 1;
    pool = pthreadpool_create(threads);
    if (pool == NULL)
        fprintf(stderr, "qmm-bench-peers: no pthreadpool of %zu threads\n", threads);
    return pool != NULL;
}

static void xnnpack_stop(void)
{
    if (pool != NULL)
        pthreadpool_destroy(pool);
    pool = NULL;
}

typedef struct fc {
    xnn_operator_t op;
    size_t batch;
    const int8_t *input;
} fc;

/* xnn_initialize here rather than in xnnpack_start: where it fails, the
 * other libraries still run and the row says "failed". */
static int fc_setup(trial *t, const operands *o)
{
    static int initialized;
    if (!initialized) {
        if (xnn_initialize(NULL) != xnn_status_success)
            return 0;
        initialized = 1;
    }
    const quant *q = &o->q;
    const int8_t *weights = q->weights_b ? o->bt : o->a;  /* [out][in] */
    fc *x = xmalloc(sizeof *x);
    x->batch = q->batch;
    x->input = q->weights_b ? o->a : o->bt;
    if (xnn_create_fully_connected_nc_qs8(o->s.k, q->channels, o->s.k, q->channels, S8_INPUT_ZP,
                                          1.0f, 1.0f, weights, q->bias, S8_OUTPUT_ZP,
                                          q->out_scale, -128, 127, 0, &x->op) !=
        xnn_status_success) {
        free(x);
        return 0;
    }
    t->state = x;
    return 1;
}

static int fc_run(trial *t, const operands *o)
{
    (void)o;
    fc *x = t->state;
    return xnn_setup_fully_connected_nc_qs8(x->op, x->batch, x->input, t->c, pool) ==
               xnn_status_success &&
           xnn_run_operator(x->op, pool) == xnn_status_success;
}

static void fc_teardown(trial *t)
{
    fc *x = t->state;
    if (x != NULL) {
        xnn_delete_operator(x->op);
        free(x);
    }
}

const contender xnnpack_qs8_fc = {
    .name = "XNNPACK qs8 FC", .result = RESULT_S8, .batch_major = 1, .setup = fc_setup,
    .run = fc_run, .teardown = fc_teardown,
};

static const contender *const contenders[] = {&xnnpack_qs8_fc, NULL};

const library xnnpack_library = {
    .start = xnnpack_start, .stop = xnnpack_stop, .contenders = contenders,
};
