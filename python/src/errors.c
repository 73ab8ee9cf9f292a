/* qmm's statuses as Python exceptions: qmm.Error, and one subclass per
 * status that also derives from the built-in exception a Python user would
 * catch for it (ValueError for a bad argument, MemoryError, ...). */
#include "qmm_py.h"

static const struct error_class {
    qmm_status status;
    const char *name, *doc;
} classes[] = {
    {QMM_ERR_INVALID_ARG, "InvalidArgumentError",
     "An argument breaks qmm's rules (QMM_VERBOSE=1 says which on stderr)."},
    {QMM_ERR_NO_MEMORY, "OutOfMemoryError", "qmm could not allocate its workspace."},
    {QMM_ERR_UNSUPPORTED, "UnsupportedError",
     "A kernel this CPU cannot run was asked for (QMM_KERNEL)."},
    {QMM_ERR_UNKNOWN_KERNEL, "UnknownKernelError", "QMM_KERNEL names no kernel of this build."},
};
enum { CLASSES = sizeof classes / sizeof classes[0] };

static PyObject *base_error, *errors[CLASSES];

/* The built-in class each status also is, by index in `classes`. */
static PyObject *builtin_of(size_t i)
{
    PyObject *const builtins[CLASSES] = {PyExc_ValueError, PyExc_MemoryError,
                                         PyExc_RuntimeError, PyExc_LookupError};
    return builtins[i];
}

int qmm_py_add_errors(PyObject *module)
{
    base_error = PyErr_NewExceptionWithDoc("qmm.Error", "A call into qmm failed.", NULL, NULL);
    if (base_error == NULL || PyModule_AddObjectRef(module, "Error", base_error) < 0)
        return -1;
    for (size_t i = 0; i < CLASSES; i++) {
        char qualified[64];
        snprintf(qualified, sizeof qualified, "qmm.%s", classes[i].name);
        PyObject *bases = PyTuple_Pack(2, base_error, builtin_of(i));
        if (bases == NULL)
            return -1;
        errors[i] = PyErr_NewExceptionWithDoc(qualified, classes[i].doc, bases, NULL);
        Py_DECREF(bases);
        PyObject *status = PyLong_FromLong(classes[i].status);
        const int bad = errors[i] == NULL || status == NULL ||
                        PyObject_SetAttrString(errors[i], "status", status) < 0 ||
                        PyModule_AddObjectRef(module, classes[i].name, errors[i]) < 0;
        Py_XDECREF(status);
        if (bad)
            return -1;
    }
    return 0;
}

PyObject *qmm_py_raise(qmm_status st, const char *call)
{
    PyObject *type = base_error;
    for (size_t i = 0; i < CLASSES; i++)
        if (classes[i].status == st)
            type = errors[i];
    PyErr_Format(type, "%s: %s%s", call, qmm_status_str(st),
                 st == QMM_ERR_INVALID_ARG ? " (QMM_VERBOSE=1 says why on stderr)" : "");
    return NULL;
}
