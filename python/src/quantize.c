/* The quantize and dequantize calls on 2-D arrays, row-major as qmm takes
 * them; qmm/_quantize.py gives them NumPy's shapes and ONNX's axis. */
#include "qmm_py.h"

typedef enum { SYMMETRIC, ASYMMETRIC, GIVEN, DEQUANTIZE } kind;

static const char *const names[] = {"qmm.quantize_symmetric", "qmm.quantize_asymmetric",
                                    "qmm.quantize", "qmm.dequantize"};

/* One call: `in` (rows x cols, leading dimension ld) to `out` (ld cols),
 * scales of the float type and zero points written (the first two kinds) or
 * read (the others; zps NULL: none). */
typedef struct call {
    kind kind;
    int f64;
    size_t rows, cols, ld;
    const void *in;
    void *out, *scales;
    int32_t *zps;
    qmm_per per;
    qmm_type type;
} call;

static qmm_status run(const call *c)
{
    const size_t r = c->rows, n = c->cols, ld = c->ld;
    switch (c->kind) {
    case SYMMETRIC:
        return c->f64 ? qmm_quantize_symmetric_f64(r, n, c->in, ld, c->per, c->out, n, c->scales)
                      : qmm_quantize_symmetric_f32(r, n, c->in, ld, c->per, c->out, n, c->scales);
    case ASYMMETRIC:
        return c->f64 ? qmm_quantize_asymmetric_f64(r, n, c->in, ld, c->per, c->type, c->out, n,
                                                    c->scales, c->zps)
                      : qmm_quantize_asymmetric_f32(r, n, c->in, ld, c->per, c->type, c->out, n,
                                                    c->scales, c->zps);
    case GIVEN:
        return c->f64 ? qmm_quantize_f64(r, n, c->in, ld, c->per, c->scales, c->zps, c->type,
                                         c->out, n)
                      : qmm_quantize_f32(r, n, c->in, ld, c->per, c->scales, c->zps, c->type,
                                         c->out, n);
    case DEQUANTIZE:
        return c->f64 ? qmm_dequantize_f64(r, n, c->type, c->in, ld, c->per, c->scales, c->zps,
                                           c->out, n)
                      : qmm_dequantize_f32(r, n, c->type, c->in, ld, c->per, c->scales, c->zps,
                                           c->out, n);
    }
    return QMM_ERR_INVALID_ARG;
}

/* The float type of a quantization's x (NPY_FLOAT32 or NPY_FLOAT64), or the
 * int8/uint8 type of a dequantization's q; -1 with a TypeError. */
static int input_type(kind k, PyObject *obj, const char *fn, qmm_type *type)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROM_O(obj);
    if (a == NULL)
        return -1;
    int t = PyArray_TYPE(a);
    if (k == DEQUANTIZE) {
        t = qmm_py_int8_type(a, fn, "q", type) < 0 ? -1 : t;
    } else if (t != NPY_FLOAT32 && t != NPY_FLOAT64) {
        PyErr_Format(PyExc_TypeError, "%s: x must be a float32 or float64 array, not %R", fn,
                     (PyObject *)PyArray_DESCR(a));
        t = -1;
    }
    Py_DECREF(a);
    return t;
}

/* An array of `lines` values of typenum, given (obj) or to be written
 * (obj NULL: zeros). */
static PyArrayObject *line_values(PyObject *obj, int typenum, npy_intp lines, const char *fn)
{
    if (obj == NULL)
        return (PyArrayObject *)PyArray_ZEROS(1, &lines, typenum, 0);
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, typenum, 0, 1,
                                                         NPY_ARRAY_CARRAY | NPY_ARRAY_FORCECAST);
    if (a != NULL && PyArray_SIZE(a) != lines) {
        PyErr_Format(PyExc_ValueError, "%s: %zd scales and zero points wanted", fn,
                     (Py_ssize_t)lines);
        Py_CLEAR(a);
    }
    return a;
}

/* The call of kind k on (input, per[, scales, zero_points, type]): type is
 * qmm's integer type for the quantizations and the output float type's
 * NumPy number for a dequantization. */
static PyObject *quantization(kind k, PyObject *args)
{
    const char *fn = names[k];
    PyObject *in_obj, *scale_obj = Py_None, *zp_obj = Py_None;
    int per, type_arg = 0;
    if (!PyArg_ParseTuple(args, "Oi|OOi", &in_obj, &per, &scale_obj, &zp_obj, &type_arg))
        return NULL;
    qmm_type qtype = (qmm_type)type_arg;
    const int in_t = input_type(k, in_obj, fn, &qtype);
    if (in_t < 0)
        return NULL;
    const int float_t = k == DEQUANTIZE ? type_arg : in_t;
    const int out_t = k == DEQUANTIZE ? float_t
                      : k == SYMMETRIC || qtype == QMM_TYPE_I8 ? NPY_INT8 : NPY_UINT8;
    PyArrayObject *in = qmm_py_rows(in_obj, fn, k == DEQUANTIZE ? "q" : "x", in_t, 2);
    if (in == NULL)
        return NULL;
    const npy_intp rows = PyArray_DIM(in, 0), cols = PyArray_DIM(in, 1);
    const npy_intp lines = per == QMM_PER_ROW ? rows : per == QMM_PER_COL ? cols : 1;
    const int written = k == SYMMETRIC || k == ASYMMETRIC;
    PyArrayObject *scales = line_values(written ? NULL : scale_obj, float_t, lines, fn);
    PyArrayObject *zps = NULL, *out = NULL;
    PyObject *result = NULL;
    if (scales == NULL)
        goto done;
    if ((k == ASYMMETRIC || (!written && zp_obj != Py_None)) &&
        (zps = line_values(written ? NULL : zp_obj, NPY_INT32, lines, fn)) == NULL)
        goto done;
    if ((out = (PyArrayObject *)PyArray_SimpleNew(2, PyArray_DIMS(in), out_t)) == NULL)
        goto done;
    const call c = {k, float_t == NPY_FLOAT64, (size_t)rows, (size_t)cols,
                    qmm_py_ld(in),
                    PyArray_DATA(in), PyArray_DATA(out), PyArray_DATA(scales),
                    zps != NULL ? PyArray_DATA(zps) : NULL, (qmm_per)per, qtype};
    qmm_status st;
    Py_BEGIN_ALLOW_THREADS
    st = run(&c);
    Py_END_ALLOW_THREADS
    if (st != QMM_OK)
        qmm_py_raise(st, fn);
    else if (k == SYMMETRIC)
        result = Py_BuildValue("OO", out, scales);
    else if (k == ASYMMETRIC)
        result = Py_BuildValue("OOO", out, scales, zps);
    else
        result = Py_NewRef(out);
done:
    Py_DECREF(in);
    Py_XDECREF(scales);
    Py_XDECREF(zps);
    Py_XDECREF(out);
    return result;
}

static PyObject *quantize_symmetric(PyObject *self, PyObject *args)
{
    (void)self;
    return quantization(SYMMETRIC, args);
}

static PyObject *quantize_asymmetric(PyObject *self, PyObject *args)
{
    (void)self;
    return quantization(ASYMMETRIC, args);
}

static PyObject *quantize_given(PyObject *self, PyObject *args)
{
    (void)self;
    return quantization(GIVEN, args);
}

static PyObject *dequantize(PyObject *self, PyObject *args)
{
    (void)self;
    return quantization(DEQUANTIZE, args);
}

PyMethodDef qmm_py_quantize_methods[] = {
    {"_quantize_symmetric", quantize_symmetric, METH_VARARGS,
     "_quantize_symmetric(x, per) -> (q, scales): qmm_quantize_symmetric_f32/_f64"},
    {"_quantize_asymmetric", quantize_asymmetric, METH_VARARGS,
     "_quantize_asymmetric(x, per, None, None, type) -> (q, scales, zero_points)"},
    {"_quantize", quantize_given, METH_VARARGS,
     "_quantize(x, per, scales, zero_points, type) -> q: qmm_quantize_f32/_f64"},
    {"_dequantize", dequantize, METH_VARARGS,
     "_dequantize(q, per, scales, zero_points, float_type) -> x"},
    {NULL, NULL, 0, NULL},
};
