/* The module qmm._qmm: every file's functions in one table, the Linear type
 * and the exceptions. */
#define QMM_PY_IMPORTS_NUMPY
#include "qmm_py.h"

static PyMethodDef *const tables[] = {qmm_py_matmul_methods, qmm_py_quantize_methods,
                                      qmm_py_float_gemm_methods, qmm_py_info_methods,
                                      qmm_py_bench_methods};
enum { TABLES = sizeof tables / sizeof tables[0], METHODS_MAX = 32 };

static PyMethodDef methods[METHODS_MAX + 1];

static int gather_methods(void)
{
    size_t used = 0;
    for (size_t t = 0; t < TABLES; t++)
        for (const PyMethodDef *m = tables[t]; m->ml_name != NULL; m++) {
            if (used == METHODS_MAX) {
                PyErr_SetString(PyExc_SystemError, "qmm._qmm: raise METHODS_MAX");
                return -1;
            }
            methods[used++] = *m;
        }
    return 0;
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "qmm._qmm",
    .m_doc = "qmm's C library for NumPy arrays; use it through the qmm package.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__qmm(void)
{
    import_array();
    if (gather_methods() < 0 || PyType_Ready(&qmm_py_linear_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (qmm_py_add_errors(m) < 0 ||
        PyModule_AddObjectRef(m, "Linear", (PyObject *)&qmm_py_linear_type) < 0 ||
        PyModule_AddIntConstant(m, "FP64_SLICES", QMM_FP64_SLICES) < 0 ||
        PyModule_AddIntConstant(m, "CRT_FP64_MODULI", QMM_CRT_FP64_MODULI) < 0 ||
        PyModule_AddIntConstant(m, "CRT_FP32_MODULI", QMM_CRT_FP32_MODULI) < 0 ||
        PyModule_AddIntConstant(m, "MAX_THREADS", QMM_MAX_THREADS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
