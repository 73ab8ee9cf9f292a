/* oneDNN (dnnl): its int8 GEMM functions, and its matmul primitive on the
 * plain int32 product and on XNNPACK's requantized function. oneDNN runs on
 * OpenMP's threads, whose count main.c sets through the environment. */
#include <dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libraries.h"
#include "xmalloc.h"

static int onednn_start(size_t threads, int avx2)
{
    (void)threads;
    /* Before oneDNN's first call, after which the limit is fixed. */
    if (avx2 && dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2) != dnnl_success) {
        fprintf(stderr, "qmm-bench-peers: oneDNN refused to stop at AVX2\n");
        return 0;
    }
    return 1;
}

/* dnnl_gemm_s8s8s32, row-major, no offsets. */
static int s8s8s32_run(trial *t, const operands *o)
{
    shape s = o->s;
    const int32_t co = 0;
    return dnnl_gemm_s8s8s32('N', 'N', 'F', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k,
                             1.0f, o->a, (dnnl_dim_t)s.k, 0, o->b, (dnnl_dim_t)s.n, 0, 0.0f,
                             t->c, (dnnl_dim_t)s.n, &co) == dnnl_success;
}

static const contender s8s8s32 = {
    .name = "oneDNN s8s8s32", .result = RESULT_I32, .run = s8s8s32_run,
};

/* dnnl_gemm_u8s8s32 on A+128 (uint8) with A offset 128: the same product,
 * through oneDNN's fastest int8 GEMM function. */
static int u8s8s32_run(trial *t, const operands *o)
{
    shape s = o->s;
    const int32_t co = 0;
    return dnnl_gemm_u8s8s32('N', 'N', 'F', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k,
                             1.0f, o->a_u8, (dnnl_dim_t)s.k, 128, o->b, (dnnl_dim_t)s.n, 0,
                             0.0f, t->c, (dnnl_dim_t)s.n, &co) == dnnl_success;
}

static const contender u8s8s32 = {
    .name = "oneDNN u8s8s32", .result = RESULT_I32, .run = u8s8s32_run,
};

/* The matmul primitive, created once outside the timing with the memory
 * objects of its operands (on the bench's buffers, or on oneDNN's for weights
 * it reordered), executed per call. */
typedef struct matmul {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    dnnl_primitive_t primitive;
    dnnl_memory_t src, weights, bias, dst;  /* bias NULL: none */
    char impl[64];  /* the implementation oneDNN picked */
    /* For reordered weights, the layout oneDNN chose for them, in words: its
     * gemm-based implementations (AVX2) keep them row-major, and the reorder
     * is then a copy. */
    const char *layout;
} matmul;

/* A rows×cols descriptor: tag dnnl_ab is row-major, dnnl_ba column-major,
 * dnnl_format_tag_any the layout the primitive prefers. */
static int md_2d(dnnl_memory_desc_t *md, size_t rows, size_t cols, dnnl_data_type_t type,
                 dnnl_format_tag_t tag)
{
    dnnl_dims_t dims = {(dnnl_dim_t)rows, (dnnl_dim_t)cols};
    return dnnl_memory_desc_init_by_tag(md, 2, dims, type, tag) == dnnl_success;
}

/* A matmul trial's state, with its engine and stream; NULL when oneDNN
 * refuses them. In t->state either way, for matmul_teardown. */
static matmul *matmul_begin(trial *t)
{
    matmul *x = xmalloc(sizeof *x);
    memset(x, 0, sizeof *x);
    x->layout = "";
    t->state = x;
    if (dnnl_engine_create(&x->engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&x->stream, x->engine, dnnl_stream_default_flags) != dnnl_success)
        return NULL;
    return x;
}

/* The primitive of pd, and the name of the implementation oneDNN picked,
 * copied: pd, which owns the string, is destroyed after setup. */
static int matmul_primitive(matmul *x, const_dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    int ok = dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
             dnnl_primitive_create(&x->primitive, pd) == dnnl_success;
    snprintf(x->impl, sizeof x->impl, "%s", impl != NULL ? impl : "none");
    return ok;
}

/* A memory object in the layout pd took for `what`, on data: the bench's own
 * buffer, or DNNL_MEMORY_ALLOCATE for one of oneDNN's. */
static dnnl_memory_t matmul_memory(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int index,
                                   dnnl_engine_t engine, const void *data)
{
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, what, index);
    dnnl_memory_t m = NULL;
    if (md == NULL || dnnl_memory_create(&m, md, engine, (void *)data) != dnnl_success)
        return NULL;
    return m;
}

static int matmul_run(trial *t, const operands *o)
{
    (void)o;
    matmul *x = t->state;
    /* The bias last: without one, the first three are all the arguments. */
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, x->src},
                              {DNNL_ARG_WEIGHTS, x->weights},
                              {DNNL_ARG_DST, x->dst},
                              {DNNL_ARG_BIAS, x->bias}};
    return dnnl_primitive_execute(x->primitive, x->stream, x->bias != NULL ? 4 : 3, args) ==
               dnnl_success &&
           dnnl_stream_wait(x->stream) == dnnl_success;
}

/* The implementation oneDNN picked, and the layout it chose for reordered
 * weights: which of its code paths the row measured. */
static void matmul_note(const trial *t, char *text, size_t size)
{
    const matmul *x = t->state;
    snprintf(text, size, "%s%s", x->impl, x->layout);
}

static void matmul_teardown(trial *t)
{
    matmul *x = t->state;
    if (x == NULL)
        return;
    dnnl_memory_destroy(x->src);
    dnnl_memory_destroy(x->weights);
    dnnl_memory_destroy(x->bias);
    dnnl_memory_destroy(x->dst);
    dnnl_primitive_destroy(x->primitive);
    dnnl_stream_destroy(x->stream);
    dnnl_engine_destroy(x->engine);
    free(x);
}

/* The matmul computing C = A·B in int32 as qmm_i8_i32 does: src A, weights
 * B, dst C, no zero points, no scales, no bias. Every operand row-major (tag
 * ab), or the weights with tag any when reordered: oneDNN then chooses their
 * layout, a blocked one, and B is reordered into it once. */
static dnnl_primitive_desc_t i32_pd(shape s, int reordered, dnnl_engine_t engine)
{
    dnnl_memory_desc_t src, weights, dst;
    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd = NULL;
    if (!md_2d(&src, s.m, s.k, dnnl_s8, dnnl_ab) ||
        !md_2d(&weights, s.k, s.n, dnnl_s8, reordered ? dnnl_format_tag_any : dnnl_ab) ||
        !md_2d(&dst, s.m, s.n, dnnl_s32, dnnl_ab) ||
        dnnl_matmul_desc_init(&desc, &src, &weights, NULL, &dst) != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL) != dnnl_success)
        return NULL;
    return pd;
}

/* The weights (rows x cols, laid out as tag says, at data) reordered once by
 * oneDNN's reorder primitive into a buffer of oneDNN's in the weights layout
 * pd chose. */
static dnnl_memory_t reordered_weights(const_dnnl_primitive_desc_t pd, matmul *x, size_t rows,
                                       size_t cols, dnnl_format_tag_t tag, const void *data)
{
    dnnl_memory_desc_t plain;
    const dnnl_memory_desc_t *blocked = NULL;
    dnnl_memory_t from = NULL,
                  to = matmul_memory(pd, dnnl_query_weights_md, 0, x->engine,
                                     DNNL_MEMORY_ALLOCATE);
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t reorder = NULL;
    int ok = to != NULL && md_2d(&plain, rows, cols, dnnl_s8, tag) &&
             dnnl_memory_create(&from, &plain, x->engine, (void *)data) == dnnl_success &&
             dnnl_memory_get_memory_desc(to, &blocked) == dnnl_success &&
             dnnl_reorder_primitive_desc_create(&rpd, &plain, x->engine, blocked, x->engine,
                                                NULL) == dnnl_success &&
             dnnl_primitive_create(&reorder, rpd) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        ok = dnnl_primitive_execute(reorder, x->stream, 2, args) == dnnl_success &&
             dnnl_stream_wait(x->stream) == dnnl_success;
        x->layout = dnnl_memory_desc_equal(blocked, &plain) ? ", weights left row-major"
                                                            : ", weights blocked";
    }
    dnnl_primitive_destroy(reorder);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(from);
    if (!ok) {
        dnnl_memory_destroy(to);
        to = NULL;
    }
    return to;
}

static int i32_setup(trial *t, const operands *o, int reordered)
{
    matmul *x = matmul_begin(t);
    dnnl_primitive_desc_t pd = NULL;
    int ok = x != NULL && (pd = i32_pd(o->s, reordered, x->engine)) != NULL &&
             matmul_primitive(x, pd) &&
             (x->src = matmul_memory(pd, dnnl_query_src_md, 0, x->engine, o->a)) != NULL &&
             (x->weights = reordered ? reordered_weights(pd, x, o->s.k, o->s.n, dnnl_ab, o->b)
                                     : matmul_memory(pd, dnnl_query_weights_md, 0, x->engine,
                                                     o->b)) != NULL &&
             (x->dst = matmul_memory(pd, dnnl_query_dst_md, 0, x->engine, t->c)) != NULL;
    if (pd != NULL)
        dnnl_primitive_desc_destroy(pd);
    return ok;
}
static int i32_plain_setup(trial *t, const operands *o)
{
    return i32_setup(t, o, 0);
}
static int i32_reordered_setup(trial *t, const operands *o)
{
    return i32_setup(t, o, 1);
}

/* qmm_i8_i32's peer: the primitive made once, executed per call. */
static const contender matmul_i32 = {
    .name = "oneDNN matmul s8s8s32", .result = RESULT_I32, .setup = i32_plain_setup,
    .run = matmul_run, .teardown = matmul_teardown, .note = matmul_note,
};

/* Its weights are B, prepared once as qmm's plan with weights B prepares
 * them, hence held against that plan. */
static const contender matmul_i32_reordered = {
    .name = "oneDNN matmul s8s8s32 reordered", .result = RESULT_I32,
    .setup = i32_reordered_setup, .run = matmul_run, .teardown = matmul_teardown,
    .note = matmul_note, .against = &qmm_plan_b,
};

/* The matmul computing XNNPACK qs8 FC's function (library_xnnpack.c) on the
 * same memory, in its orientation: src the input [batch][in], weights its
 * [out][in] read as in × out, the int32 bias, dst [batch][out] int8.
 *
 * The zero points and the requantization as attributes: output scales per
 * output channel (mask: dst's dimension 1), as a model with per-channel
 * weight scales has them, here all XNNPACK's one scale so that the function
 * is the same. oneDNN adds the bias to the sums before it scales, and the dst
 * zero point before it rounds: at a tie, an odd zero point turns the rounding
 * to even into rounding to odd. The src zero point stays an attribute, though
 * oneDNN 2.6 on AVX2 then runs 25 times slower (12 ms instead of 0.46 on
 * 128x384x384): folded into the bias instead (as XNNPACK does), the fast path
 * saturates pairs of products in int16 without VNNI, and 45420 of 49152
 * entries came out different there. */
static dnnl_primitive_attr_t s8_attr(const quant *q)
{
    static const int32_t src_zp = S8_INPUT_ZP, dst_zp = S8_OUTPUT_ZP;
    float *scales = xmalloc(q->channels * sizeof *scales);
    for (size_t c = 0; c < q->channels; c++)
        scales[c] = 1.0f / q->out_scale;
    dnnl_primitive_attr_t attr = NULL;
    int ok = dnnl_primitive_attr_create(&attr) == dnnl_success &&
             dnnl_primitive_attr_set_output_scales(attr, (dnnl_dim_t)q->channels, 1 << 1,
                                                   scales) == dnnl_success &&
             dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, &src_zp) ==
                 dnnl_success &&
             dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0, &dst_zp) ==
                 dnnl_success;
    free(scales);  /* the attributes keep a copy */
    if (!ok && attr != NULL) {
        dnnl_primitive_attr_destroy(attr);
        attr = NULL;
    }
    return attr;
}

/* The weights [out][in] as oneDNN's in × out: column-major, or the layout
 * it prefers (tag any) when reordered. */
static dnnl_primitive_desc_t s8_pd(const operands *o, int reordered, dnnl_engine_t engine)
{
    const quant *q = &o->q;
    size_t k = o->s.k;
    dnnl_memory_desc_t src, weights, bias, dst;
    dnnl_matmul_desc_t desc;
    if (!md_2d(&src, q->batch, k, dnnl_s8, dnnl_ab) ||
        !md_2d(&weights, k, q->channels, dnnl_s8, reordered ? dnnl_format_tag_any : dnnl_ba) ||
        !md_2d(&bias, 1, q->channels, dnnl_s32, dnnl_ab) ||
        !md_2d(&dst, q->batch, q->channels, dnnl_s8, dnnl_ab) ||
        dnnl_matmul_desc_init(&desc, &src, &weights, &bias, &dst) != dnnl_success)
        return NULL;
    dnnl_primitive_attr_t attr = s8_attr(q);
    dnnl_primitive_desc_t pd = NULL;
    if (attr == NULL || dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL) != dnnl_success)
        pd = NULL;
    if (attr != NULL)
        dnnl_primitive_attr_destroy(attr);
    return pd;
}

static int s8_setup(trial *t, const operands *o, int reordered)
{
    const quant *q = &o->q;
    const int8_t *weights = q->weights_b ? o->bt : o->a;  /* [out][in] */
    matmul *x = matmul_begin(t);
    dnnl_primitive_desc_t pd = NULL;
    int ok = x != NULL && (pd = s8_pd(o, reordered, x->engine)) != NULL &&
             matmul_primitive(x, pd) &&
             (x->src = matmul_memory(pd, dnnl_query_src_md, 0, x->engine,
                                     q->weights_b ? o->a : o->bt)) != NULL &&
             (x->weights = reordered ? reordered_weights(pd, x, o->s.k, q->channels, dnnl_ba,
                                                         weights)
                                     : matmul_memory(pd, dnnl_query_weights_md, 0, x->engine,
                                                     weights)) != NULL &&
             (x->bias = matmul_memory(pd, dnnl_query_weights_md, 1, x->engine, q->bias)) !=
                 NULL &&
             (x->dst = matmul_memory(pd, dnnl_query_dst_md, 0, x->engine, t->c)) != NULL;
    if (pd != NULL)
        dnnl_primitive_desc_destroy(pd);
    return ok;
}

static int s8_plain_setup(trial *t, const operands *o)
{
    return s8_setup(t, o, 0);
}
static int s8_reordered_setup(trial *t, const operands *o)
{
    return s8_setup(t, o, 1);
}

/* Its dst is laid out as XNNPACK's output. */
static const contender matmul_s8 = {
    .name = "oneDNN matmul s8", .result = RESULT_S8, .batch_major = 1, .setup = s8_plain_setup,
    .run = matmul_run, .teardown = matmul_teardown, .note = matmul_note,
    .peer = &xnnpack_qs8_fc,
};

/* The weights reordered once, as a model loaded into oneDNN keeps them:
 * held against qmm's plan of the same function. */
static const contender matmul_s8_reordered = {
    .name = "oneDNN matmul s8 reordered", .result = RESULT_S8, .batch_major = 1,
    .setup = s8_reordered_setup, .run = matmul_run, .teardown = matmul_teardown,
    .note = matmul_note, .peer = &xnnpack_qs8_fc, .against = &qmm_plan_s8,
};

static const contender *const contenders[] = {
    &s8s8s32, &u8s8s32, &matmul_i32, &matmul_i32_reordered, &matmul_s8, &matmul_s8_reordered,
    NULL,
};

const library onednn_library = {.start = onednn_start, .contenders = contenders};
