/*
 * What the files of qmm's extension module share: the Python and NumPy
 * headers (NumPy's C API table is imported once, by module.c), the module's
 * exceptions, argument parsing, the arrays' checks and the output stage.
 */
#ifndef QMM_PY_H
#define QMM_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define PY_ARRAY_UNIQUE_SYMBOL qmm_py_numpy_api
#ifndef QMM_PY_IMPORTS_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <qmm/qmm.h>

/* ---- errors.c ---------------------------------------------------------- */

/* Adds qmm.Error and its subclasses, one per status, to the module. */
int qmm_py_add_errors(PyObject *module);

/* Raises the exception of status st, "call: <qmm's status text>"; NULL. */
PyObject *qmm_py_raise(qmm_status st, const char *call);

/* ---- args.c: keyword parsing for METH_FASTCALL | METH_KEYWORDS ---------- */

/* The parameters of a function, in order: the first `positional` may be
 * given by position, the others by keyword only; the first `required` must
 * be given. */
typedef struct qmm_py_params {
    const char *fn;              /* for messages: "qmm.gemm" */
    const char *const *names;
    int count, positional, required;
} qmm_py_params;

/* Fills values[0 .. count) with borrowed references, NULL where absent (None
 * counts as given: callers read it as absent). -1 with a TypeError for a
 * missing, unknown or repeated argument. */
int qmm_py_parse(const qmm_py_params *p, PyObject *const *args, Py_ssize_t nargs,
                 PyObject *kwnames, PyObject **values);

/* ---- arrays.c ---------------------------------------------------------- */

/* qmm's type of an int8 or uint8 array; -1 with a TypeError naming `what`
 * for any other dtype. */
int qmm_py_int8_type(PyArrayObject *a, const char *fn, const char *what, qmm_type *type);

/* The lowest and one past the highest byte an array covers (lo == hi when
 * it has no elements). */
void qmm_py_span(PyArrayObject *a, const char **lo, const char **hi);

/* Nonzero when the byte ranges of a and b intersect. */
int qmm_py_overlap(PyArrayObject *a, PyArrayObject *b);

/* The output of a product of `shape`: returns the array the call gives back
 * (`out` itself when given, a new one when out is NULL or None) and sets
 * *target to the array the product writes: the same one when qmm can write
 * it as it is (aligned, strides of whole elements), else a fresh one that
 * qmm_py_finish copies in. A given out must have the dtype `typenum` in
 * native byte order and the shape, be writeable and have distinct elements:
 * else NULL with TypeError or ValueError. New references. */
PyArrayObject *qmm_py_output(PyObject *out, const char *fn, int ndim, const npy_intp *shape,
                             int typenum, PyArrayObject **target);

/* After the product went into *target: copies it into out when they differ,
 * drops target; returns out (a new reference) or NULL. */
PyObject *qmm_py_finish(PyArrayObject *out, PyArrayObject *target);

/* An array of float32 or float64 (as `dtype`) with unit column stride and
 * aligned rows, as qmm's row-major float calls take it: a's own data when it
 * is so, else a copy. 2-D only (or `ndim`). New reference, or NULL with
 * TypeError / ValueError. */
PyArrayObject *qmm_py_rows(PyObject *obj, const char *fn, const char *what, int typenum,
                           int ndim);

/* The leading dimension, in elements, of a 2-D array qmm_py_rows gave. */
size_t qmm_py_ld(PyArrayObject *a);

/* ---- stage.c: the quantized product's parameters and output stage ------- */

enum { QMM_PY_KEEP = 16 };

typedef struct qmm_py_stage {
    qmm_i32_param a_zero_point, b_zero_point;
    qmm_output c;                   /* all but data, rs and cs */
    int typenum;                    /* C's NumPy type */
    int plain;                      /* int32 C, no zero points, no bias */
    PyObject *keep[QMM_PY_KEEP];    /* the arrays the parameters point into */
    int kept;
} qmm_py_stage;

/* The keyword arguments of qmm.gemm and Linear.__call__ after the
 * operands, in this order. */
#define QMM_PY_STAGE_NAMES                                                              \
    "a_zero_point", "b_zero_point", "bias", "out_dtype", "scale", "float_bias",         \
        "rounding", "multiplier", "shift", "out_zero_point", "clamp"
enum { QMM_PY_STAGE_ARGS = 11 };

/* Reads the stage's arguments (values in QMM_PY_STAGE_NAMES order, NULL or
 * None when absent) for an m x n product. -1 with an exception. */
int qmm_py_stage_parse(qmm_py_stage *s, const char *fn, PyObject *const *values, npy_intp m,
                       npy_intp n);

/* Drops the arrays the stage keeps. */
void qmm_py_stage_clear(qmm_py_stage *s);

/* ---- the functions and types of each file ------------------------------ */

extern PyMethodDef qmm_py_matmul_methods[], qmm_py_quantize_methods[],
    qmm_py_float_gemm_methods[], qmm_py_info_methods[], qmm_py_bench_methods[];
extern PyTypeObject qmm_py_linear_type;

#endif
