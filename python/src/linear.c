/* qmm.Linear: a layer's weights packed once (a weights-B plan, include/qmm/
 * qmm.h), called per batch of activations as a PyTorch or ONNX layer is. */
#include "qmm_py.h"

#include <stddef.h>
#include <string.h>
#include <structmember.h>

typedef struct linear {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    qmm_plan *plan;
    npy_intp in_features, out_features;
    int out_in;                 /* weight stored [out x in] */
    PyArray_Descr *dtype;
} linear;

/* The rows of a (every dimension but the last, merged) as one dimension of
 * stride *rs: 0 when they cannot be (the array must be copied first). */
static int rows_merge(PyArrayObject *a, npy_intp *rs)
{
    const int nd = PyArray_NDIM(a);
    npy_intp stride = 0, reach = 0;
    int seen = 0;
    for (int d = nd - 2; d >= 0; d--) {
        const npy_intp e = PyArray_DIM(a, d), s = PyArray_STRIDE(a, d);
        if (e == 1)
            continue;
        if (seen && s != reach)
            return 0;
        if (!seen)
            stride = s;
        seen = 1;
        reach = s * e;
    }
    *rs = seen ? stride : PyArray_ITEMSIZE(a) * (nd > 0 ? PyArray_DIM(a, nd - 1) : 1);
    return 1;
}

static int linear_init(PyObject *self_obj, PyObject *args, PyObject *kwargs)
{
    linear *self = (linear *)self_obj;
    static char *names[] = {"weight", "zero_point", "layout", NULL};
    PyObject *w_obj, *zp = NULL;
    const char *layout = "out_in";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O$s:Linear", names, &w_obj, &zp, &layout))
        return -1;
    if (self->plan != NULL) {
        PyErr_SetString(PyExc_TypeError, "qmm.Linear: already initialized");
        return -1;
    }
    const int out_in = strcmp(layout, "out_in") == 0;
    if (!out_in && strcmp(layout, "in_out") != 0) {
        PyErr_Format(PyExc_ValueError, "qmm.Linear: layout must be 'out_in' ([out x in], as "
                     "PyTorch and ONNX's Gemm store weights) or 'in_out', not '%s'", layout);
        return -1;
    }
    PyArrayObject *w = (PyArrayObject *)PyArray_FROM_O(w_obj);
    qmm_type type;
    if (w == NULL || qmm_py_int8_type(w, "qmm.Linear", "weight", &type) < 0) {
        Py_XDECREF(w);
        return -1;
    }
    if (PyArray_NDIM(w) != 2) {
        PyErr_Format(PyExc_ValueError, "qmm.Linear: weight must be 2-D, not %d-D",
                     PyArray_NDIM(w));
        Py_DECREF(w);
        return -1;
    }
    /* B[p][j] = weight[j][p] for [out x in], weight[p][j] for [in x out]. */
    const int in_dim = out_in ? 1 : 0, out_dim = 1 - in_dim;
    const npy_intp in = PyArray_DIM(w, in_dim), out = PyArray_DIM(w, out_dim);
    PyObject *stage_args[QMM_PY_STAGE_ARGS] = {NULL};
    stage_args[1] = zp;
    qmm_py_stage s;
    if (qmm_py_stage_parse(&s, "qmm.Linear", stage_args, 1, out) < 0) {
        qmm_py_stage_clear(&s);
        Py_DECREF(w);
        return -1;
    }
    qmm_gemm_desc d = {
        .m = QMM_SYMBOLIC, .n = (size_t)out, .k = (size_t)in,
        .b = {type, PyArray_BYTES(w), PyArray_STRIDE(w, in_dim), PyArray_STRIDE(w, out_dim),
              s.b_zero_point},
    };
    qmm_status st;
    Py_BEGIN_ALLOW_THREADS
    st = qmm_plan_create_gemm(&self->plan, &d, QMM_WEIGHTS_B);
    Py_END_ALLOW_THREADS
    qmm_py_stage_clear(&s);
    if (st != QMM_OK) {
        self->plan = NULL;
        Py_DECREF(w);
        qmm_py_raise(st, "qmm.Linear");
        return -1;
    }
    self->in_features = in;
    self->out_features = out;
    self->out_in = out_in;
    self->dtype = PyArray_DESCR(w);
    Py_INCREF(self->dtype);
    Py_DECREF(w);
    return 0;
}

static int x_operand(linear *self, PyObject *x_obj, PyArrayObject **x, qmm_type *type,
                     npy_intp *m, npy_intp *rs)
{
    *x = (PyArrayObject *)PyArray_FROM_O(x_obj);
    if (*x == NULL || qmm_py_int8_type(*x, "qmm.Linear", "x", type) < 0)
        return -1;
    const int nd = PyArray_NDIM(*x);
    if (nd == 0 || PyArray_DIM(*x, nd - 1) != self->in_features) {
        PyErr_Format(PyExc_ValueError, "qmm.Linear: x must end in a dimension of %zd "
                     "(in_features)", (Py_ssize_t)self->in_features);
        return -1;
    }
    *m = 1;
    for (int d = 0; d < nd - 1; d++)
        *m *= PyArray_DIM(*x, d);
    if (!rows_merge(*x, rs)) {
        PyArrayObject *copy = (PyArrayObject *)PyArray_NewCopy(*x, NPY_CORDER);
        Py_SETREF(*x, copy);
        if (copy == NULL)
            return -1;
        rows_merge(*x, rs);
    }
    return 0;
}

static PyObject *linear_call(PyObject *self_obj, PyObject *const *args, size_t nargsf,
                             PyObject *kwnames)
{
    linear *self = (linear *)self_obj;
    static const char *const names[] = {"x", "x_zero_point", "bias", "out_dtype", "scale",
                                        "float_bias", "rounding", "multiplier", "shift",
                                        "out_zero_point", "clamp", "out"};
    enum { COUNT = sizeof names / sizeof names[0] };
    static const qmm_py_params params = {"qmm.Linear", names, COUNT, 1, 1};
    PyObject *v[COUNT], *result = NULL;
    if (self->plan == NULL) {
        PyErr_SetString(PyExc_TypeError, "qmm.Linear: not initialized");
        return NULL;
    }
    if (qmm_py_parse(&params, args, PyVectorcall_NARGS(nargsf), kwnames, v) < 0)
        return NULL;
    PyObject *stage_args[QMM_PY_STAGE_ARGS];
    stage_args[0] = v[1];
    stage_args[1] = NULL;
    memcpy(stage_args + 2, v + 2, (QMM_PY_STAGE_ARGS - 2) * sizeof v[0]);

    PyArrayObject *x = NULL, *out = NULL, *target = NULL;
    qmm_type type;
    npy_intp m = 0, rs = 0, rsc = 0;
    const npy_intp n = self->out_features;
    qmm_py_stage s = {0};
    if (x_operand(self, v[0], &x, &type, &m, &rs) < 0 ||
        qmm_py_stage_parse(&s, params.fn, stage_args, m, n) < 0)
        goto done;
    npy_intp shape[NPY_MAXDIMS];
    const int nd = PyArray_NDIM(x);
    memcpy(shape, PyArray_DIMS(x), (size_t)nd * sizeof shape[0]);
    shape[nd - 1] = n;
    if ((out = qmm_py_output(v[COUNT - 1], params.fn, nd, shape, s.typenum, &target)) == NULL)
        goto done;
    if (qmm_py_overlap(out, x)) {
        PyErr_SetString(PyExc_ValueError, "qmm.Linear: out overlaps x");
        goto done;
    }
    if (!rows_merge(target, &rsc)) {
        Py_SETREF(target, (PyArrayObject *)PyArray_SimpleNew(nd, shape, s.typenum));
        if (target == NULL)
            goto done;
        rows_merge(target, &rsc);
    }
    const npy_intp item = PyArray_ITEMSIZE(target);
    qmm_gemm_desc d = {
        .m = (size_t)m, .n = (size_t)n, .k = (size_t)self->in_features,
        .a = {type, PyArray_BYTES(x), m > 1 ? rs : 1, PyArray_STRIDE(x, nd - 1),
              s.a_zero_point},
        .c = s.c,
    };
    d.c.data = PyArray_BYTES(target);
    d.c.rs = m > 1 ? rsc / item : 1;
    d.c.cs = n > 1 ? PyArray_STRIDE(target, nd - 1) / item : 1;
    qmm_status st = QMM_OK;
    if (m > 0 && n > 0) {
        Py_BEGIN_ALLOW_THREADS
        st = qmm_plan_run_gemm(self->plan, &d);
        Py_END_ALLOW_THREADS
    }
    if (st != QMM_OK) {
        qmm_py_raise(st, params.fn);
        goto done;
    }
    result = qmm_py_finish(out, target);
    out = target = NULL;
done:
    qmm_py_stage_clear(&s);
    Py_XDECREF(x);
    Py_XDECREF(out);
    Py_XDECREF(target);
    return result;
}

static PyObject *linear_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    (void)args;
    (void)kwargs;
    linear *self = (linear *)type->tp_alloc(type, 0);
    if (self != NULL)
        self->vectorcall = linear_call;
    return (PyObject *)self;
}

static void linear_dealloc(PyObject *self_obj)
{
    linear *self = (linear *)self_obj;
    qmm_plan_destroy(self->plan);
    Py_XDECREF(self->dtype);
    Py_TYPE(self_obj)->tp_free(self_obj);
}

static PyObject *kernel_name(PyObject *self_obj, PyObject *arg)
{
    linear *self = (linear *)self_obj;
    const Py_ssize_t m = PyLong_AsSsize_t(arg);
    if (m == -1 && PyErr_Occurred())
        return NULL;
    const char *name = self->plan != NULL && m > 0 ? qmm_plan_kernel_name(self->plan, (size_t)m)
                                                  : NULL;
    if (name == NULL)
        Py_RETURN_NONE;
    return PyUnicode_FromString(name);
}

static PyObject *get_layout(PyObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(((linear *)self)->out_in ? "out_in" : "in_out");
}

static PyObject *get_dtype(PyObject *self, void *closure)
{
    (void)closure;
    PyArray_Descr *d = ((linear *)self)->dtype;
    if (d == NULL)
        Py_RETURN_NONE;
    Py_INCREF(d);
    return (PyObject *)d;
}

static PyObject *linear_repr(PyObject *self_obj)
{
    linear *self = (linear *)self_obj;
    return PyUnicode_FromFormat("qmm.Linear(in_features=%zd, out_features=%zd, dtype=%s)",
                                (Py_ssize_t)self->in_features, (Py_ssize_t)self->out_features,
                                self->dtype != NULL && self->dtype->type_num == NPY_UINT8
                                    ? "uint8" : "int8");
}

static PyMethodDef linear_methods[] = {
    {"kernel_name", kernel_name, METH_O,
     "kernel_name(rows)\n--\n\nThe kernel a call with `rows` rows of x runs (None for 0)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef linear_members[] = {
    {"in_features", T_PYSSIZET, offsetof(linear, in_features), READONLY, "k: x's last dimension"},
    {"out_features", T_PYSSIZET, offsetof(linear, out_features), READONLY, "n: the output's"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef linear_getset[] = {
    {"layout", get_layout, NULL, "'out_in' or 'in_out': how the weight was stored", NULL},
    {"dtype", get_dtype, NULL, "the weight's dtype (int8 or uint8)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(linear_doc,
"Linear(weight, zero_point=None, *, layout='out_in')\n--\n\n"
"A layer whose int8 or uint8 weights are packed once for qmm's kernel (a\n"
"weights-B plan), then called per batch: layer(x, ...) is qmm.gemm(x, B, ...)\n"
"with B the weights as a [in x out] matrix.\n\n"
"weight is [out x in] (layout='out_in', as torch.nn.Linear and ONNX's Gemm\n"
"with transB store it) or [in x out] (layout='in_out', ONNX MatMul's B), any\n"
"strides; it is packed now and may be changed or freed afterwards.\n"
"zero_point: the weights', a scalar or one per output channel (out,).\n\n"
"layer(x, *, x_zero_point=None, bias=None, out_dtype=numpy.int32, scale=None,\n"
"      float_bias=None, rounding=None, multiplier=None, shift=None,\n"
"      out_zero_point=0, clamp=None, out=None)\n"
"x is int8 or uint8 of shape (..., in); the result (..., out). The keyword\n"
"arguments are qmm.gemm's (x_zero_point is its a_zero_point), with the\n"
"rows of every leading dimension of x taken together as m. A layer may be\n"
"called from several threads at once.");

PyTypeObject qmm_py_linear_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "qmm.Linear",
    .tp_basicsize = sizeof(linear),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = linear_doc,
    .tp_new = linear_new,
    .tp_init = linear_init,
    .tp_dealloc = linear_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(linear, vectorcall),
    .tp_repr = linear_repr,
    .tp_methods = linear_methods,
    .tp_members = linear_members,
    .tp_getset = linear_getset,
};
