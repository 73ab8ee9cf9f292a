/* For bench/python_overhead.py: the C call that qmm.matmul makes for a 2-D
 * int8 product, timed in a loop in C, so that the bench sets Python's cost
 * beside C's on the same arrays in the same process. */
#include "qmm_py.h"

#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static PyObject *time_matmul(PyObject *self, PyObject *args)
{
    (void)self;
    PyArrayObject *a, *b, *c;
    Py_ssize_t repeats;
    if (!PyArg_ParseTuple(args, "O!O!O!n", &PyArray_Type, &a, &PyArray_Type, &b,
                          &PyArray_Type, &c, &repeats))
        return NULL;
    const int ok = PyArray_NDIM(a) == 2 && PyArray_NDIM(b) == 2 && PyArray_NDIM(c) == 2 &&
                   PyArray_TYPE(a) == NPY_INT8 && PyArray_TYPE(b) == NPY_INT8 &&
                   PyArray_TYPE(c) == NPY_INT32 && PyArray_ISCARRAY(c) &&
                   PyArray_DIM(a, 1) == PyArray_DIM(b, 0) &&
                   PyArray_DIM(c, 0) == PyArray_DIM(a, 0) && PyArray_DIM(c, 1) == PyArray_DIM(b, 1);
    if (!ok || repeats < 1) {
        PyErr_SetString(PyExc_ValueError, "_time_matmul: 2-D int8 a, b, C-contiguous int32 c");
        return NULL;
    }
    const size_t m = (size_t)PyArray_DIM(a, 0), n = (size_t)PyArray_DIM(b, 1),
                 k = (size_t)PyArray_DIM(a, 1);
    qmm_status st = QMM_OK;
    double start, end;
    Py_BEGIN_ALLOW_THREADS
    start = now();
    for (Py_ssize_t r = 0; r < repeats && st == QMM_OK; r++)
        st = qmm_i8_i32_strided(m, n, k, PyArray_DATA(a), PyArray_STRIDE(a, 0),
                                PyArray_STRIDE(a, 1), PyArray_DATA(b), PyArray_STRIDE(b, 0),
                                PyArray_STRIDE(b, 1), PyArray_DATA(c), (ptrdiff_t)n, 1);
    end = now();
    Py_END_ALLOW_THREADS
    if (st != QMM_OK)
        return qmm_py_raise(st, "_time_matmul");
    return PyFloat_FromDouble((end - start) / (double)repeats);
}

PyMethodDef qmm_py_bench_methods[] = {
    {"_time_matmul", time_matmul, METH_VARARGS,
     "_time_matmul(a, b, c, repeats) -> seconds per call of qmm_i8_i32_strided, timed in C"},
    {NULL, NULL, 0, NULL},
};
