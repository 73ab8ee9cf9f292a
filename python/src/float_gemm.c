/* Float and double GEMM through int8 (include/qmm/qmm.h): the INT8 recipe
 * in one call, and FP64/FP32 emulated on the int8 units. */
#include "qmm_py.h"

/* One of the four calls, by kind, on row-major A, B and C. */
typedef enum { SGEMM_I8, DGEMM_I8, DGEMM_CRT, SGEMM_CRT } kind;

typedef struct call {
    kind kind;
    size_t m, n, k, lda, ldb, ldc;
    const void *a, *b;
    void *c;
    unsigned count;             /* slices or moduli */
    qmm_per g;
} call;

static qmm_status run(const call *c)
{
    switch (c->kind) {
    case SGEMM_I8:
        return qmm_sgemm_i8(c->m, c->n, c->k, c->a, c->lda, c->b, c->ldb, c->c, c->ldc, c->g);
    case DGEMM_I8:
        return qmm_dgemm_i8(c->m, c->n, c->k, c->a, c->lda, c->b, c->ldb, c->c, c->ldc, c->g,
                            c->count);
    case DGEMM_CRT:
        return qmm_dgemm_crt(c->m, c->n, c->k, c->a, c->lda, c->b, c->ldb, c->c, c->ldc,
                             c->count);
    case SGEMM_CRT:
        return qmm_sgemm_crt(c->m, c->n, c->k, c->a, c->lda, c->b, c->ldb, c->c, c->ldc,
                             c->count);
    }
    return QMM_ERR_INVALID_ARG;
}

static PyObject *multiply(const char *fn, kind k, PyObject *a_obj, PyObject *b_obj,
                          unsigned count, qmm_per g)
{
    const int t = k == DGEMM_I8 || k == DGEMM_CRT ? NPY_FLOAT64 : NPY_FLOAT32;
    PyArrayObject *a = qmm_py_rows(a_obj, fn, "a", t, 2), *b = NULL, *c = NULL;
    PyObject *result = NULL;
    if (a == NULL || (b = qmm_py_rows(b_obj, fn, "b", t, 2)) == NULL)
        goto done;
    if (PyArray_DIM(a, 1) != PyArray_DIM(b, 0)) {
        PyErr_Format(PyExc_ValueError, "%s: a has %zd columns and b %zd rows", fn,
                     (Py_ssize_t)PyArray_DIM(a, 1), (Py_ssize_t)PyArray_DIM(b, 0));
        goto done;
    }
    const npy_intp shape[2] = {PyArray_DIM(a, 0), PyArray_DIM(b, 1)};
    if ((c = (PyArrayObject *)PyArray_SimpleNew(2, shape, t)) == NULL)
        goto done;
    const call cl = {k, (size_t)shape[0], (size_t)shape[1], (size_t)PyArray_DIM(a, 1),
                     qmm_py_ld(a), qmm_py_ld(b), (size_t)shape[1], PyArray_DATA(a), PyArray_DATA(b),
                     PyArray_DATA(c), count, g};
    qmm_status st;
    Py_BEGIN_ALLOW_THREADS
    st = run(&cl);
    Py_END_ALLOW_THREADS
    if (st != QMM_OK) {
        qmm_py_raise(st, fn);
        goto done;
    }
    result = (PyObject *)c;
    c = NULL;
done:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(c);
    return result;
}

static PyObject *sgemm_i8(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *names[] = {"a", "b", "per_channel", NULL};
    PyObject *a, *b;
    int per_channel = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$p:sgemm_i8", names, &a, &b, &per_channel))
        return NULL;
    return multiply("qmm.sgemm_i8", SGEMM_I8, a, b, 1,
                    per_channel ? QMM_PER_ROW_COL : QMM_PER_MATRIX);
}

static PyObject *dgemm_i8(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *names[] = {"a", "b", "slices", "per_channel", NULL};
    PyObject *a, *b;
    unsigned slices = QMM_FP64_SLICES;
    int per_channel = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$Ip:dgemm_i8", names, &a, &b, &slices,
                                     &per_channel))
        return NULL;
    return multiply("qmm.dgemm_i8", DGEMM_I8, a, b, slices,
                    per_channel ? QMM_PER_ROW_COL : QMM_PER_MATRIX);
}

static PyObject *crt(PyObject *args, PyObject *kw, const char *fn, kind k, unsigned moduli)
{
    static char *names[] = {"a", "b", "moduli", NULL};
    PyObject *a, *b;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$I", names, &a, &b, &moduli))
        return NULL;
    return multiply(fn, k, a, b, moduli, QMM_PER_ROW_COL);
}

static PyObject *dgemm_crt(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    return crt(args, kw, "qmm.dgemm_crt", DGEMM_CRT, QMM_CRT_FP64_MODULI);
}

static PyObject *sgemm_crt(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    return crt(args, kw, "qmm.sgemm_crt", SGEMM_CRT, QMM_CRT_FP32_MODULI);
}

#define METHOD(name, doc)                                                                  \
    {#name, (PyCFunction)(void (*)(void))name, METH_VARARGS | METH_KEYWORDS, doc}

PyMethodDef qmm_py_float_gemm_methods[] = {
    METHOD(sgemm_i8,
           "sgemm_i8(a, b, *, per_channel=True)\n--\n\n"
           "a @ b for float32 arrays through one int8 GEMM (the INT8 recipe): a\n"
           "quantized per row and b per column (per_channel=False: per tensor),\n"
           "symmetric int8, exact int32 sums, dequantized (qmm_sgemm_i8)."),
    METHOD(dgemm_i8,
           "dgemm_i8(a, b, *, slices=8, per_channel=True)\n--\n\n"
           "a @ b for float64 arrays through int8 slices (qmm_dgemm_i8): each\n"
           "value split into `slices` 7-bit digits, about 7 bits of accuracy per\n"
           "slice; 8 match a native float64 GEMM on well-scaled data."),
    METHOD(dgemm_crt,
           "dgemm_crt(a, b, *, moduli=16)\n--\n\n"
           "a @ b for float64 arrays by the Chinese remainder theorem (the Ozaki\n"
           "scheme II, qmm_dgemm_crt): one int8 GEMM per modulus; 16 match a\n"
           "native float64 GEMM on well-scaled data."),
    METHOD(sgemm_crt,
           "sgemm_crt(a, b, *, moduli=8)\n--\n\n"
           "a @ b for float32 arrays by the Chinese remainder theorem\n"
           "(qmm_sgemm_crt); 8 moduli give float32's accuracy up to k = 8192."),
    {NULL, NULL, 0, NULL},
};
