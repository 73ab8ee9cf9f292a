/* qmm.gemm's keyword arguments as qmm_gemm_desc's zero points and output
 * stage. A parameter's shape says how many values it has, as NumPy would
 * broadcast it against the m x n result: a scalar (or one value) is per
 * matrix, (m, 1) per row, (n,) or (1, n) per column; A's zero point may also
 * be (m,) (ONNX's per-row form), and a pair (row, col) of scales is
 * qmm's per row times per column. */
#include "qmm_py.h"

#include <string.h>

enum { ROWS = 1, COLS = 2 };  /* what a parameter may vary along */

static int keep(qmm_py_stage *s, PyArrayObject *a)
{
    if (s->kept == QMM_PY_KEEP) {
        Py_DECREF(a);
        PyErr_SetString(PyExc_SystemError, "qmm: too many stage parameters");
        return -1;
    }
    s->keep[s->kept++] = (PyObject *)a;
    return 0;
}

void qmm_py_stage_clear(qmm_py_stage *s)
{
    for (int i = 0; i < s->kept; i++)
        Py_DECREF(s->keep[i]);
    s->kept = 0;
}

static int absent(PyObject *o)
{
    return o == NULL || o == Py_None;
}

/* How a parameter of this shape spreads over the m x n result; QMM_PER_NONE
 * with a ValueError when it cannot. */
static qmm_per per_of(PyArrayObject *a, const char *fn, const char *what, int along,
                      npy_intp m, npy_intp n)
{
    const int nd = PyArray_NDIM(a);
    const npy_intp *dim = PyArray_DIMS(a);
    if (PyArray_SIZE(a) == 1 && nd <= 2)
        return QMM_PER_MATRIX;
    if ((along & COLS) && ((nd == 1 && dim[0] == n) || (nd == 2 && dim[0] == 1 && dim[1] == n)))
        return QMM_PER_COL;
    if ((along & ROWS) && ((nd == 2 && dim[0] == m && dim[1] == 1) ||
                           (nd == 1 && dim[0] == m && !(along & COLS))))
        return QMM_PER_ROW;
    PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
    if (shape != NULL)
        PyErr_Format(PyExc_ValueError,
                     "%s: %s has shape %R; for a %zd x %zd result it may be a scalar%s%s", fn,
                     what, shape, (Py_ssize_t)m, (Py_ssize_t)n,
                     (along & ROWS) ? (along & COLS ? ", (m, 1) per row" : ", (m,) per row")
                                    : "",
                     (along & COLS) ? ", (n,) or (1, n) per column" : "");
    Py_XDECREF(shape);
    return QMM_PER_NONE;
}

/* obj as a C-contiguous array of `typenum` (int32 or float32), its values
 * checked: integers within int32 for int32, real numbers for float32. */
static PyArrayObject *values_of(PyObject *obj, const char *fn, const char *what, int typenum)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROM_O(obj);
    if (a == NULL)
        return NULL;
    const int integral = PyArray_ISINTEGER(a) || PyArray_ISBOOL(a);
    if (typenum == NPY_INT32 ? !integral : !(integral || PyArray_ISFLOAT(a))) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be %s, not %R", fn, what,
                     typenum == NPY_INT32 ? "integers" : "real numbers",
                     (PyObject *)PyArray_DESCR(a));
        Py_DECREF(a);
        return NULL;
    }
    /* Integers pass through double, exact up to 2^53 and beyond int32 for
     * any larger value, so the range check sees every value as it is. */
    const int via = typenum == NPY_INT32 ? NPY_DOUBLE : typenum;
    PyArrayObject *c = (PyArrayObject *)PyArray_FROMANY(
        (PyObject *)a, via, 0, 0, NPY_ARRAY_CARRAY | NPY_ARRAY_FORCECAST);
    Py_DECREF(a);
    if (c == NULL || typenum != NPY_INT32)
        return c;
    const double *v = PyArray_DATA(c);
    for (npy_intp i = 0; i < PyArray_SIZE(c); i++)
        if (!(v[i] >= INT32_MIN && v[i] <= INT32_MAX)) {
            PyErr_Format(PyExc_ValueError, "%s: %s has a value outside int32's range", fn, what);
            Py_DECREF(c);
            return NULL;
        }
    PyArrayObject *i32 = (PyArrayObject *)PyArray_FROMANY(
        (PyObject *)c, NPY_INT32, 0, 0, NPY_ARRAY_CARRAY | NPY_ARRAY_FORCECAST);
    Py_DECREF(c);
    return i32;
}

/* An int32 parameter: absent, one value, or per row / column. */
static int i32_param(qmm_py_stage *s, const char *fn, const char *what, PyObject *obj,
                     int along, npy_intp m, npy_intp n, qmm_i32_param *p)
{
    *p = (qmm_i32_param){QMM_PER_NONE, 0, NULL};
    if (absent(obj))
        return 0;
    PyArrayObject *a = values_of(obj, fn, what, NPY_INT32);
    if (a == NULL || keep(s, a) < 0)
        return -1;
    p->per = per_of(a, fn, what, along, m, n);
    if (p->per == QMM_PER_MATRIX)
        p->value = *(const int32_t *)PyArray_DATA(a);
    else
        p->values = PyArray_DATA(a);
    return p->per == QMM_PER_NONE ? -1 : 0;
}

/* A float32 parameter, as i32_param; `pair` allows (row, col) scales. */
static int f32_param(qmm_py_stage *s, const char *fn, const char *what, PyObject *obj,
                     int pair, npy_intp m, npy_intp n, qmm_f32_param *p)
{
    *p = (qmm_f32_param){QMM_PER_NONE, 0, NULL, NULL};
    if (absent(obj))
        return 0;
    if (pair && PyTuple_Check(obj)) {
        if (PyTuple_GET_SIZE(obj) != 2) {
            PyErr_Format(PyExc_ValueError, "%s: a tuple %s is (row scales, column scales)", fn,
                         what);
            return -1;
        }
        PyArrayObject *rows = values_of(PyTuple_GET_ITEM(obj, 0), fn, what, NPY_FLOAT32);
        if (rows == NULL || keep(s, rows) < 0)
            return -1;
        PyArrayObject *cols = values_of(PyTuple_GET_ITEM(obj, 1), fn, what, NPY_FLOAT32);
        if (cols == NULL || keep(s, cols) < 0)
            return -1;
        if (PyArray_SIZE(rows) != m || PyArray_SIZE(cols) != n) {
            PyErr_Format(PyExc_ValueError, "%s: %s (row, col) needs %zd and %zd values, not "
                         "%zd and %zd", fn, what, (Py_ssize_t)m, (Py_ssize_t)n,
                         (Py_ssize_t)PyArray_SIZE(rows), (Py_ssize_t)PyArray_SIZE(cols));
            return -1;
        }
        *p = (qmm_f32_param){QMM_PER_ROW_COL, 0, PyArray_DATA(rows), PyArray_DATA(cols)};
        return 0;
    }
    PyArrayObject *a = values_of(obj, fn, what, NPY_FLOAT32);
    if (a == NULL || keep(s, a) < 0)
        return -1;
    p->per = per_of(a, fn, what, ROWS | COLS, m, n);
    if (p->per == QMM_PER_MATRIX)
        p->value = *(const float *)PyArray_DATA(a);
    else
        p->values = PyArray_DATA(a);
    return p->per == QMM_PER_NONE ? -1 : 0;
}

static int out_typenum(PyObject *obj, const char *fn, int *typenum)
{
    *typenum = NPY_INT32;
    if (absent(obj))
        return 0;
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(obj, &d))
        return -1;
    *typenum = d->type_num;
    const int ok = PyArray_ISNBO(d->byteorder) &&
                   (d->type_num == NPY_INT32 || d->type_num == NPY_FLOAT32 ||
                    d->type_num == NPY_INT8 || d->type_num == NPY_UINT8);
    if (!ok)
        PyErr_Format(PyExc_TypeError, "%s: out_dtype must be int32, float32, int8 or uint8, "
                     "not %R", fn, (PyObject *)d);
    Py_DECREF(d);
    return ok ? 0 : -1;
}

static int rounding_of(PyObject *obj, const char *fn, qmm_rounding *r)
{
    static const struct { const char *name; qmm_rounding rule; } rules[] = {
        {"float", QMM_ROUND_FLOAT}, {"tflite", QMM_ROUND_TFLITE}, {"single", QMM_ROUND_SINGLE}};
    const char *name = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    for (size_t i = 0; name != NULL && i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(name, rules[i].name) == 0) {
            *r = rules[i].rule;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "%s: rounding must be 'float', 'tflite' or 'single', not %R",
                 fn, obj);
    return -1;
}

/* A Python integer saturated to int32 (qmm's own range checks then refuse
 * what is out of the type's range); -1 with an exception. */
static int saturated_int32(PyObject *obj, int32_t *out)
{
    const long long x = PyLong_AsLongLong(obj);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *out = (int32_t)(x < INT32_MIN ? INT32_MIN : x > INT32_MAX ? INT32_MAX : x);
    return 0;
}

/* clamp=(lo, hi) as two doubles: integral for integer outputs. */
static int clamp_of(PyObject *obj, const char *fn, int integral, double *lo, double *hi)
{
    if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: clamp must be a pair (min, max)", fn);
        return -1;
    }
    PyObject *seq = PySequence_Fast(obj, "clamp");
    if (seq == NULL)
        return -1;
    int st = PySequence_Fast_GET_SIZE(seq) == 2 ? 0 : -1;
    if (st < 0)
        PyErr_Format(PyExc_ValueError, "%s: clamp must be a pair (min, max)", fn);
    double v[2];
    for (int i = 0; st == 0 && i < 2; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (integral) {
            int32_t x = 0;
            st = saturated_int32(item, &x);
            v[i] = (double)x;
        } else {
            v[i] = PyFloat_AsDouble(item);
            st = v[i] == -1.0 && PyErr_Occurred() ? -1 : 0;
        }
    }
    Py_DECREF(seq);
    *lo = v[0];
    *hi = v[1];
    return st;
}

enum { A_ZP, B_ZP, BIAS, OUT_DTYPE, SCALE, FLOAT_BIAS, ROUNDING, MULTIPLIER, SHIFT,
       OUT_ZP, CLAMP };

/* Arguments given that C's type does not read are mistakes: say so. */
static int refuse_unread(PyObject *const *v, const char *fn, int typenum)
{
    static const char *const names[] = {QMM_PY_STAGE_NAMES};
    const int is_float = typenum == NPY_FLOAT32, is_int8 = typenum == NPY_INT8 ||
                                                          typenum == NPY_UINT8;
    const int unread[] = {SCALE, FLOAT_BIAS, ROUNDING, MULTIPLIER, SHIFT, OUT_ZP, CLAMP};
    for (size_t i = 0; i < sizeof unread / sizeof unread[0]; i++) {
        const int arg = unread[i];
        const int read = arg == SCALE || arg == CLAMP ? is_float || is_int8
                         : arg == FLOAT_BIAS          ? is_float
                                                      : is_int8;
        if (!read && !absent(v[arg])) {
            PyErr_Format(PyExc_ValueError, "%s: %s does not apply to a %s output", fn,
                         names[arg], is_float ? "float32" : is_int8 ? "int8/uint8" : "int32");
            return -1;
        }
    }
    return 0;
}

static int requant(qmm_py_stage *s, const char *fn, PyObject *const *v, npy_intp m, npy_intp n)
{
    qmm_requant *r = &s->c.requant;
    const int has_scale = !absent(v[SCALE]), has_mult = !absent(v[MULTIPLIER]);
    if (!absent(v[ROUNDING])) {
        if (rounding_of(v[ROUNDING], fn, &r->rounding) < 0)
            return -1;
    } else if (has_scale && !has_mult) {
        r->rounding = QMM_ROUND_FLOAT;
    } else {
        PyErr_Format(PyExc_ValueError, "%s: an int8/uint8 output needs scale= (rounding "
                     "'float') or multiplier= and shift= with rounding='tflite' or 'single'",
                     fn);
        return -1;
    }
    const int is_float = r->rounding == QMM_ROUND_FLOAT;
    if (is_float ? !has_scale || has_mult || !absent(v[SHIFT]) : has_scale || !has_mult) {
        PyErr_Format(PyExc_ValueError, is_float ? "%s: rounding 'float' takes scale=, not "
                                                  "multiplier= or shift="
                                                : "%s: rounding 'tflite' and 'single' take "
                                                  "multiplier= and shift=, not scale=", fn);
        return -1;
    }
    if (is_float) {
        qmm_f32_param p;
        if (f32_param(s, fn, "scale", v[SCALE], 0, m, n, &p) < 0)
            return -1;
        r->per = p.per;
        r->scale = p.value;
        r->scales = p.values;
    } else {
        qmm_i32_param mult, shift;
        if (i32_param(s, fn, "multiplier", v[MULTIPLIER], ROWS | COLS, m, n, &mult) < 0 ||
            i32_param(s, fn, "shift", v[SHIFT], ROWS | COLS, m, n, &shift) < 0)
            return -1;
        if (shift.per == QMM_PER_NONE)
            shift.per = QMM_PER_MATRIX;
        if (mult.per != shift.per && shift.per != QMM_PER_MATRIX) {
            PyErr_Format(PyExc_ValueError, "%s: multiplier and shift must have the same shape",
                         fn);
            return -1;
        }
        /* A single shift beside per-line multipliers is repeated. */
        r->per = mult.per;
        r->multiplier = mult.value;
        r->shift = shift.value;
        r->multipliers = mult.values;
        if (mult.per != QMM_PER_MATRIX && shift.per == QMM_PER_MATRIX) {
            const npy_intp lines = mult.per == QMM_PER_ROW ? m : n;
            PyArrayObject *shifts = (PyArrayObject *)PyArray_SimpleNew(1, &lines, NPY_INT32);
            if (shifts == NULL || keep(s, shifts) < 0)
                return -1;
            for (npy_intp i = 0; i < lines; i++)
                ((int32_t *)PyArray_DATA(shifts))[i] = shift.value;
            r->shifts = PyArray_DATA(shifts);
        } else {
            r->shifts = shift.values;
        }
    }
    if (!absent(v[OUT_ZP]) && saturated_int32(v[OUT_ZP], &r->zero_point) < 0)
        return -1;
    if (!absent(v[CLAMP])) {
        double lo, hi;
        if (clamp_of(v[CLAMP], fn, 1, &lo, &hi) < 0)
            return -1;
        r->clamp = 1;
        r->min = (int32_t)lo;
        r->max = (int32_t)hi;
    }
    return 0;
}

static int dequant(qmm_py_stage *s, const char *fn, PyObject *const *v, npy_intp m, npy_intp n)
{
    qmm_dequant *d = &s->c.dequant;
    if (f32_param(s, fn, "scale", v[SCALE], 1, m, n, &d->scale) < 0 ||
        f32_param(s, fn, "float_bias", v[FLOAT_BIAS], 0, m, n, &d->bias) < 0)
        return -1;
    if (!absent(v[CLAMP])) {
        double lo, hi;
        if (clamp_of(v[CLAMP], fn, 0, &lo, &hi) < 0)
            return -1;
        d->clamp = 1;
        d->min = (float)lo;
        d->max = (float)hi;
    }
    return 0;
}

int qmm_py_stage_parse(qmm_py_stage *s, const char *fn, PyObject *const *v, npy_intp m,
                       npy_intp n)
{
    static const qmm_type types[] = {[NPY_INT8] = QMM_TYPE_I8, [NPY_UINT8] = QMM_TYPE_U8,
                                     [NPY_INT32] = QMM_TYPE_I32, [NPY_FLOAT32] = QMM_TYPE_F32};
    *s = (qmm_py_stage){0};
    if (out_typenum(v[OUT_DTYPE], fn, &s->typenum) < 0 || refuse_unread(v, fn, s->typenum) < 0)
        return -1;
    s->c.type = types[s->typenum];
    if (i32_param(s, fn, "a_zero_point", v[A_ZP], ROWS, m, n, &s->a_zero_point) < 0 ||
        i32_param(s, fn, "b_zero_point", v[B_ZP], COLS, m, n, &s->b_zero_point) < 0 ||
        i32_param(s, fn, "bias", v[BIAS], ROWS | COLS, m, n, &s->c.bias) < 0)
        return -1;
    if (s->typenum == NPY_FLOAT32 && dequant(s, fn, v, m, n) < 0)
        return -1;
    if ((s->typenum == NPY_INT8 || s->typenum == NPY_UINT8) && requant(s, fn, v, m, n) < 0)
        return -1;
    s->plain = s->typenum == NPY_INT32 && s->a_zero_point.per == QMM_PER_NONE &&
               s->b_zero_point.per == QMM_PER_NONE && s->c.bias.per == QMM_PER_NONE;
    return 0;
}
