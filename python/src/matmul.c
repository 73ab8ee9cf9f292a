/* qmm.matmul and qmm.gemm: int8/uint8 products of NumPy arrays of any
 * strides (NumPy's strides are qmm's, in bytes for one-byte elements: a
 * transposed or sliced view is read where it lies), stacked operands
 * broadcast as numpy.matmul broadcasts them, one qmm call per matrix. */
#include "qmm_py.h"

/* An operand as qmm reads it: the matrix dimensions of the array (a 1-D
 * array is a row of A or a column of B, as numpy.matmul takes it), strides
 * in elements, and how many leading dimensions stack matrices. */
typedef struct operand {
    PyArrayObject *arr;
    qmm_type type;
    int vector, batch_dims;
    npy_intp rows, cols, rs, cs;
} operand;

typedef struct product {
    const char *fn;
    operand a, b;
    npy_intp m, n, k;
    int batch_dims;
    npy_intp batch[NPY_MAXDIMS], a_step[NPY_MAXDIMS], b_step[NPY_MAXDIMS], c_step[NPY_MAXDIMS];
    ptrdiff_t rsc, csc;
    PyArrayObject *out, *target;
} product;

static int operand_of(PyObject *obj, const char *fn, int is_b, operand *op)
{
    const char *what = is_b ? "b" : "a";
    op->arr = (PyArrayObject *)PyArray_FROM_O(obj);
    if (op->arr == NULL || qmm_py_int8_type(op->arr, fn, what, &op->type) < 0)
        return -1;
    const int nd = PyArray_NDIM(op->arr);
    const npy_intp *dim = PyArray_DIMS(op->arr), *st = PyArray_STRIDES(op->arr);
    if (nd == 0) {
        PyErr_Format(PyExc_ValueError, "%s: %s is a scalar; it needs at least one dimension",
                     fn, what);
        return -1;
    }
    op->vector = nd == 1;
    op->batch_dims = nd > 2 ? nd - 2 : 0;
    if (op->vector && !is_b)
        *op = (operand){op->arr, op->type, 1, 0, 1, dim[0], 0, st[0]};
    else if (op->vector)
        *op = (operand){op->arr, op->type, 1, 0, dim[0], 1, st[0], 0};
    else
        *op = (operand){op->arr, op->type, 0, nd - 2, dim[nd - 2], dim[nd - 1], st[nd - 2],
                        st[nd - 1]};
    return 0;
}

/* The stacking dimensions of both operands, aligned from the right and
 * broadcast; a dimension of one (or a missing one) is read again, stride 0. */
static int broadcast(product *p)
{
    const operand *a = &p->a, *b = &p->b;
    const int nb = a->batch_dims > b->batch_dims ? a->batch_dims : b->batch_dims;
    p->batch_dims = nb;
    for (int d = 0; d < nb; d++) {
        const int da = d - (nb - a->batch_dims), db = d - (nb - b->batch_dims);
        const npy_intp ea = da >= 0 ? PyArray_DIM(a->arr, da) : 1;
        const npy_intp eb = db >= 0 ? PyArray_DIM(b->arr, db) : 1;
        if (ea != eb && ea != 1 && eb != 1) {
            PyErr_Format(PyExc_ValueError, "%s: the stacks of a and b cannot be broadcast "
                         "together (%zd and %zd)", p->fn, (Py_ssize_t)ea, (Py_ssize_t)eb);
            return -1;
        }
        p->batch[d] = ea == 1 ? eb : ea;
        p->a_step[d] = ea == 1 ? 0 : PyArray_STRIDE(a->arr, da);
        p->b_step[d] = eb == 1 ? 0 : PyArray_STRIDE(b->arr, db);
    }
    return 0;
}

/* Element strides of C's matrix in the target; a dimension of one gets 1
 * (qmm takes no zero stride, NumPy may give one there). */
static void output_strides(product *p)
{
    PyArrayObject *t = p->target;
    const int nd = PyArray_NDIM(t);
    const npy_intp item = PyArray_ITEMSIZE(t);
    for (int d = 0; d < p->batch_dims; d++)
        p->c_step[d] = PyArray_STRIDE(t, d);
    const npy_intp last = nd > p->batch_dims ? PyArray_STRIDE(t, nd - 1) / item : 1;
    const npy_intp before = nd > p->batch_dims + 1 ? PyArray_STRIDE(t, nd - 2) / item : 1;
    p->rsc = p->a.vector ? 1 : p->b.vector ? last : before;
    p->csc = p->b.vector ? 1 : last;
    if (p->m == 1)
        p->rsc = 1;
    if (p->n == 1)
        p->csc = 1;
}

static int prepare(product *p, PyObject *a, PyObject *b)
{
    if (operand_of(a, p->fn, 0, &p->a) < 0 || operand_of(b, p->fn, 1, &p->b) < 0)
        return -1;
    if (p->a.cols != p->b.rows) {
        PyErr_Format(PyExc_ValueError, "%s: a has %zd columns and b %zd rows", p->fn,
                     (Py_ssize_t)p->a.cols, (Py_ssize_t)p->b.rows);
        return -1;
    }
    p->m = p->a.rows;
    p->n = p->b.cols;
    p->k = p->a.cols;
    return broadcast(p);
}

static int make_output(product *p, PyObject *out, int typenum)
{
    npy_intp shape[NPY_MAXDIMS];
    int nd = p->batch_dims;
    for (int d = 0; d < nd; d++)
        shape[d] = p->batch[d];
    if (!p->a.vector)
        shape[nd++] = p->m;
    if (!p->b.vector)
        shape[nd++] = p->n;
    p->out = qmm_py_output(out, p->fn, nd, shape, typenum, &p->target);
    if (p->out == NULL)
        return -1;
    /* The C rule for the whole stack: no matrix of C may overlap any of A
     * or B, which a call per matrix would not see. */
    if (qmm_py_overlap(p->out, p->a.arr) || qmm_py_overlap(p->out, p->b.arr)) {
        PyErr_Format(PyExc_ValueError, "%s: out overlaps %s", p->fn,
                     qmm_py_overlap(p->out, p->a.arr) ? "a" : "b");
        return -1;
    }
    output_strides(p);
    return 0;
}

static qmm_status one(const product *p, const qmm_py_stage *s, const char *a, const char *b,
                      char *c)
{
    if (s->plain && p->a.type == QMM_TYPE_I8 && p->b.type == QMM_TYPE_I8)
        return qmm_i8_i32_strided((size_t)p->m, (size_t)p->n, (size_t)p->k,
                                  (const int8_t *)a, p->a.rs, p->a.cs, (const int8_t *)b,
                                  p->b.rs, p->b.cs, (int32_t *)(void *)c, p->rsc, p->csc);
    qmm_gemm_desc d = {
        .m = (size_t)p->m, .n = (size_t)p->n, .k = (size_t)p->k,
        .a = {p->a.type, a, p->a.rs, p->a.cs, s->a_zero_point},
        .b = {p->b.type, b, p->b.rs, p->b.cs, s->b_zero_point},
        .c = s->c,
    };
    d.c.data = c;
    d.c.rs = p->rsc;
    d.c.cs = p->csc;
    return qmm_gemm(&d);
}

/* Every matrix of the stack, in order; the first failure stops it. */
static qmm_status run(const product *p, const qmm_py_stage *s)
{
    npy_intp items = 1, index[NPY_MAXDIMS] = {0};
    for (int d = 0; d < p->batch_dims; d++)
        items *= p->batch[d];
    const char *a = PyArray_BYTES(p->a.arr), *b = PyArray_BYTES(p->b.arr);
    char *c = PyArray_BYTES(p->target);
    qmm_status st = QMM_OK;
    for (npy_intp t = 0; t < items && st == QMM_OK; t++) {
        st = one(p, s, a, b, c);
        for (int d = p->batch_dims - 1; d >= 0; d--) {
            a += p->a_step[d];
            b += p->b_step[d];
            c += p->c_step[d];
            if (++index[d] < p->batch[d])
                break;
            index[d] = 0;
            a -= p->a_step[d] * p->batch[d];
            b -= p->b_step[d] * p->batch[d];
            c -= p->c_step[d] * p->batch[d];
        }
    }
    return st;
}

static void product_clear(product *p)
{
    Py_XDECREF(p->a.arr);
    Py_XDECREF(p->b.arr);
    Py_XDECREF(p->out);
    Py_XDECREF(p->target);
}

/* The product, its stage parsed from `stage` (NULL: int32, nothing else). */
static PyObject *multiply(const char *fn, PyObject *a, PyObject *b, PyObject *out,
                          PyObject *const *stage)
{
    product p = {.fn = fn};
    qmm_py_stage s = {.typenum = NPY_INT32, .plain = 1, .c.type = QMM_TYPE_I32};
    PyObject *result = NULL;
    if (prepare(&p, a, b) < 0 ||
        (stage != NULL && qmm_py_stage_parse(&s, fn, stage, p.m, p.n) < 0) ||
        make_output(&p, out, s.typenum) < 0)
        goto done;
    qmm_status st = QMM_OK;
    if (PyArray_SIZE(p.target) > 0) {
        Py_BEGIN_ALLOW_THREADS
        st = run(&p, &s);
        Py_END_ALLOW_THREADS
    }
    if (st != QMM_OK) {
        qmm_py_raise(st, fn);
        goto done;
    }
    result = qmm_py_finish(p.out, p.target);
    p.out = p.target = NULL;
done:
    qmm_py_stage_clear(&s);
    product_clear(&p);
    return result;
}

static PyObject *matmul(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"a", "b", "out"};
    static const qmm_py_params params = {"qmm.matmul", names, 3, 3, 2};
    PyObject *v[3];
    if (qmm_py_parse(&params, args, nargs, kwnames, v) < 0)
        return NULL;
    return multiply(params.fn, v[0], v[1], v[2], NULL);
}

static PyObject *gemm(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames)
{
    (void)self;
    static const char *const names[] = {"a", "b", QMM_PY_STAGE_NAMES, "out"};
    enum { COUNT = 3 + QMM_PY_STAGE_ARGS };
    static const qmm_py_params params = {"qmm.gemm", names, COUNT, 2, 2};
    PyObject *v[COUNT];
    if (qmm_py_parse(&params, args, nargs, kwnames, v) < 0)
        return NULL;
    return multiply(params.fn, v[0], v[1], v[COUNT - 1], v + 2);
}

PyDoc_STRVAR(matmul_doc,
"matmul(a, b, out=None)\n--\n\n"
"The exact int32 product of int8 or uint8 arrays, as numpy.matmul computes\n"
"it in int64 but wrapping around in int32 (exact while it fits).\n\n"
"a and b may be any strided views (transposed, sliced, reversed: read where\n"
"they lie, no copy); 1-D operands and stacks of matrices (N-D, broadcast)\n"
"behave as in numpy.matmul. out, when given, is an int32 array of the\n"
"result's shape that overlaps neither input; it is returned.\n\n"
"Raises TypeError for other dtypes, ValueError for shapes that do not match,\n"
"and qmm.Error's subclasses for what qmm refuses.");

PyDoc_STRVAR(gemm_doc,
"gemm(a, b, *, a_zero_point=None, b_zero_point=None, bias=None,\n"
"     out_dtype=numpy.int32, scale=None, float_bias=None, rounding=None,\n"
"     multiplier=None, shift=None, out_zero_point=0, clamp=None, out=None)\n--\n\n"
"The quantized product of int8/uint8 arrays with zero points and an output\n"
"stage: C's qmm_gemm_desc as keyword arguments (include/qmm/qmm.h).\n\n"
"    acc = (a - a_zero_point) @ (b - b_zero_point) + bias   exact, int32 wrap-around\n\n"
"then, by out_dtype:\n"
"  int32    acc\n"
"  float32  float(acc) * scale + float_bias, clamped to clamp=(min, max),\n"
"           each step one float32 operation\n"
"  int8,    y = round(acc) by `rounding`, then clamp(y + out_zero_point) to\n"
"  uint8    the type's range or clamp=(min, max):\n"
"             'float'   round_half_even(float32(acc) * scale) (ONNX\n"
"                       QLinearMatMul; the default when scale is given)\n"
"             'tflite'  TFLite's MultiplyByQuantizedMultiplier(acc,\n"
"                       multiplier, shift), gemmlowp's fixed point\n"
"             'single'  (acc * multiplier + 2^(30 - shift)) >> (31 - shift)\n\n"
"A parameter's shape says how it spreads over the m x n result, as NumPy\n"
"broadcasts: a scalar is per matrix, (m, 1) per row, (n,) or (1, n) per\n"
"column; a_zero_point may be (m,) per row of a (ONNX), b_zero_point (n,)\n"
"per column of b; scale=(row_scales, col_scales) multiplies (float(acc) *\n"
"row_scales[i]) * col_scales[j] (the INT8 recipe's dequantization). Float\n"
"parameters are rounded to float32. Stacked operands broadcast as in matmul,\n"
"the parameters applying to each matrix.");

PyMethodDef qmm_py_matmul_methods[] = {
    {"matmul", (PyCFunction)(void (*)(void))matmul, METH_FASTCALL | METH_KEYWORDS, matmul_doc},
    {"gemm", (PyCFunction)(void (*)(void))gemm, METH_FASTCALL | METH_KEYWORDS, gemm_doc},
    {NULL, NULL, 0, NULL},
};
