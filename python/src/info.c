/* Threads, kernels and CPU features: what qmm runs on here. */
#include "qmm_py.h"

static PyObject *set_num_threads(PyObject *self, PyObject *arg)
{
    (void)self;
    const Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "qmm.set_num_threads: n must be >= 0");
        return NULL;
    }
    const qmm_status st = qmm_set_num_threads((size_t)n);
    if (st != QMM_OK)
        return qmm_py_raise(st, "qmm.set_num_threads");
    Py_RETURN_NONE;
}

static PyObject *get_num_threads(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromSize_t(qmm_get_num_threads());
}

static PyObject *kernels(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const size_t count = qmm_kernel_count();
    PyObject *list = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; list != NULL && i < count; i++) {
        const qmm_kernel_info *k = qmm_kernel_at(i);
        PyObject *row = Py_BuildValue("ssIIO", k->name, k->isa, k->mr, k->nr,
                                      k->supported_here ? Py_True : Py_False);
        if (row == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, row);
    }
    return list;
}

static PyObject *cpu_features(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(qmm_cpu_feature_names());
}

static int dtype_type(PyObject *obj, qmm_type *type)
{
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(obj, &d))
        return -1;
    const int t = d->type_num;
    Py_DECREF(d);
    if (t != NPY_INT8 && t != NPY_UINT8) {
        PyErr_SetString(PyExc_TypeError, "qmm.kernel_name: the dtypes are int8 or uint8");
        return -1;
    }
    *type = t == NPY_INT8 ? QMM_TYPE_I8 : QMM_TYPE_U8;
    return 0;
}

static PyObject *kernel_name(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *names[] = {"m", "n", "k", "a_dtype", "b_dtype", NULL};
    Py_ssize_t m, n, k;
    PyObject *ad = NULL, *bd = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "nnn|$OO:kernel_name", names, &m, &n, &k, &ad,
                                     &bd))
        return NULL;
    if (m < 0 || n < 0 || k < 0) {
        PyErr_SetString(PyExc_ValueError, "qmm.kernel_name: sizes must be >= 0");
        return NULL;
    }
    qmm_gemm_desc d = {.m = (size_t)m, .n = (size_t)n, .k = (size_t)k};
    if ((ad != NULL && dtype_type(ad, &d.a.type) < 0) ||
        (bd != NULL && dtype_type(bd, &d.b.type) < 0))
        return NULL;
    const char *name = qmm_gemm_kernel_name(&d);
    if (name == NULL)
        Py_RETURN_NONE;
    return PyUnicode_FromString(name);
}

PyMethodDef qmm_py_info_methods[] = {
    {"set_num_threads", set_num_threads, METH_O,
     "set_num_threads(n)\n--\n\nThe number of threads qmm's calls run on from now on, in "
     "every thread; 0 restores the default (QMM_NUM_THREADS, else the CPUs this process may "
     "use). The result is the same bits whatever the count."},
    {"get_num_threads", get_num_threads, METH_NOARGS,
     "get_num_threads()\n--\n\nThe thread count in effect."},
    {"_kernels", kernels, METH_NOARGS, "_kernels() -> [(name, isa, mr, nr, supported)]"},
    {"_cpu_features", cpu_features, METH_NOARGS, "_cpu_features() -> 'avx2,fma,...'"},
    {"kernel_name", (PyCFunction)(void (*)(void))kernel_name, METH_VARARGS | METH_KEYWORDS,
     "kernel_name(m, n, k, *, a_dtype=numpy.int8, b_dtype=numpy.int8)\n--\n\n"
     "The kernel an m x k by k x n product of these dtypes runs on this CPU\n"
     "(qmm.gemm, or qmm.matmul per matrix); None when m or n is 0."},
    {NULL, NULL, 0, NULL},
};
