/* NumPy arrays as qmm's operands and outputs: dtypes, spans, and outputs
 * that qmm can write as they are. */
#include "qmm_py.h"

#include <stdlib.h>

int qmm_py_int8_type(PyArrayObject *a, const char *fn, const char *what, qmm_type *type)
{
    switch (PyArray_TYPE(a)) {
    case NPY_INT8:
        *type = QMM_TYPE_I8;
        return 0;
    case NPY_UINT8:
        *type = QMM_TYPE_U8;
        return 0;
    default:
        PyErr_Format(PyExc_TypeError, "%s: %s must be an int8 or uint8 array, not %R", fn, what,
                     (PyObject *)PyArray_DESCR(a));
        return -1;
    }
}

void qmm_py_span(PyArrayObject *a, const char **lo, const char **hi)
{
    const char *low = PyArray_BYTES(a), *high = low;
    if (PyArray_SIZE(a) == 0) {
        *lo = *hi = low;
        return;
    }
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        const npy_intp reach = (PyArray_DIM(a, d) - 1) * PyArray_STRIDE(a, d);
        if (reach < 0)
            low += reach;
        else
            high += reach;
    }
    *lo = low;
    *hi = high + PyArray_ITEMSIZE(a);
}

int qmm_py_overlap(PyArrayObject *a, PyArrayObject *b)
{
    const char *alo, *ahi, *blo, *bhi;
    qmm_py_span(a, &alo, &ahi);
    qmm_py_span(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* A dimension of more than one element: its |stride| and extent. */
typedef struct step {
    npy_intp stride, extent;
} step;

static int by_stride(const void *x, const void *y)
{
    const npy_intp a = ((const step *)x)->stride, b = ((const step *)y)->stride;
    return (a > b) - (a < b);
}

/* Whether every element has its own bytes: taken by growing |stride|, each
 * dimension steps past all that the smaller ones reach. */
static int distinct_elements(PyArrayObject *a)
{
    step steps[NPY_MAXDIMS];
    size_t used = 0;
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        const npy_intp e = PyArray_DIM(a, d), s = PyArray_STRIDE(a, d);
        if (e == 0)
            return 1;
        if (e > 1)
            steps[used++] = (step){s < 0 ? -s : s, e};
    }
    qsort(steps, used, sizeof steps[0], by_stride);
    npy_intp reach = PyArray_ITEMSIZE(a);
    for (size_t u = 0; u < used; u++) {
        if (steps[u].stride < reach)
            return 0;
        reach += (steps[u].extent - 1) * steps[u].stride;
    }
    return 1;
}

/* Whether qmm can write a as it is: aligned, its strides whole elements. */
static int writable_as_is(PyArrayObject *a)
{
    if (!PyArray_ISALIGNED(a))
        return 0;
    for (int d = 0; d < PyArray_NDIM(a); d++)
        if (PyArray_STRIDE(a, d) % PyArray_ITEMSIZE(a) != 0)
            return 0;
    return 1;
}

PyArrayObject *qmm_py_output(PyObject *out, const char *fn, int ndim, const npy_intp *shape,
                             int typenum, PyArrayObject **target)
{
    if (out == NULL || out == Py_None) {
        PyArrayObject *fresh = (PyArrayObject *)PyArray_SimpleNew(ndim, shape, typenum);
        Py_XINCREF(fresh);
        *target = fresh;
        return fresh;
    }
    if (!PyArray_Check(out)) {
        PyErr_Format(PyExc_TypeError, "%s: out must be a numpy array", fn);
        return NULL;
    }
    PyArrayObject *o = (PyArrayObject *)out;
    PyArray_Descr *want = PyArray_DescrFromType(typenum);
    const int same_type =
        PyArray_EquivTypes(PyArray_DESCR(o), want) && PyArray_ISNBO(PyArray_DESCR(o)->byteorder);
    if (!same_type) {
        PyErr_Format(PyExc_TypeError, "%s: out must be a %R array, not %R", fn, (PyObject *)want,
                     (PyObject *)PyArray_DESCR(o));
        Py_DECREF(want);
        return NULL;
    }
    Py_DECREF(want);
    int fits = PyArray_NDIM(o) == ndim;
    for (int d = 0; fits && d < ndim; d++)
        fits = PyArray_DIM(o, d) == shape[d];
    if (!fits) {
        PyObject *got = PyObject_GetAttrString(out, "shape");
        PyObject *wanted = PyArray_IntTupleFromIntp(ndim, shape);
        if (got != NULL && wanted != NULL)
            PyErr_Format(PyExc_ValueError, "%s: out has shape %R, the product %R", fn, got,
                         wanted);
        Py_XDECREF(got);
        Py_XDECREF(wanted);
        return NULL;
    }
    if (!PyArray_ISWRITEABLE(o)) {
        PyErr_Format(PyExc_ValueError, "%s: out is read-only", fn);
        return NULL;
    }
    if (!distinct_elements(o)) {
        PyErr_Format(PyExc_ValueError, "%s: out has elements that share memory", fn);
        return NULL;
    }
    if (writable_as_is(o)) {
        Py_INCREF(o);
        *target = o;
    } else if ((*target = (PyArrayObject *)PyArray_SimpleNew(ndim, shape, typenum)) == NULL) {
        return NULL;
    }
    Py_INCREF(o);
    return o;
}

PyObject *qmm_py_finish(PyArrayObject *out, PyArrayObject *target)
{
    const int copied = target == out || PyArray_CopyInto(out, target) == 0;
    Py_DECREF(target);
    if (!copied) {
        Py_DECREF(out);
        return NULL;
    }
    return (PyObject *)out;
}

PyArrayObject *qmm_py_rows(PyObject *obj, const char *fn, const char *what, int typenum,
                           int ndim)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROM_O(obj);
    if (a == NULL)
        return NULL;
    if (PyArray_TYPE(a) != typenum) {
        PyArray_Descr *want = PyArray_DescrFromType(typenum);
        PyErr_Format(PyExc_TypeError, "%s: %s must be a %R array, not %R", fn, what,
                     (PyObject *)want, (PyObject *)PyArray_DESCR(a));
        Py_DECREF(want);
        Py_DECREF(a);
        return NULL;
    }
    if (PyArray_NDIM(a) != ndim) {
        PyErr_Format(PyExc_ValueError, "%s: %s must have %d dimensions, not %d", fn, what, ndim,
                     PyArray_NDIM(a));
        Py_DECREF(a);
        return NULL;
    }
    /* Rows of unit-stride elements, each row a whole number of elements from
     * the first (a leading dimension); anything else is copied. */
    const npy_intp item = PyArray_ITEMSIZE(a);
    int as_is = PyArray_ISALIGNED(a) && PyArray_ISNBO(PyArray_DESCR(a)->byteorder);
    if (ndim == 2) {
        const npy_intp rows = PyArray_DIM(a, 0), cols = PyArray_DIM(a, 1);
        const npy_intp rs = PyArray_STRIDE(a, 0), cs = PyArray_STRIDE(a, 1);
        as_is = as_is && (cols <= 1 || cs == item) &&
                (rows <= 1 || (rs > 0 && rs % item == 0 && rs / item >= cols));
    } else {
        as_is = as_is && PyArray_IS_C_CONTIGUOUS(a);
    }
    if (as_is)
        return a;
    PyArrayObject *copy = (PyArrayObject *)PyArray_NewCopy(a, NPY_CORDER);
    Py_DECREF(a);
    return copy;
}

size_t qmm_py_ld(PyArrayObject *a)
{
    return PyArray_DIM(a, 0) > 1 ? (size_t)(PyArray_STRIDE(a, 0) / PyArray_ITEMSIZE(a))
                                 : (size_t)PyArray_DIM(a, 1);
}
