/* Argument parsing for the vectorcall convention: cheaper than
 * PyArg_ParseTupleAndKeywords, whose cost would show at the small products
 * an inference engine runs by the thousand. */
#include "qmm_py.h"

#include <string.h>

static int index_of(const qmm_py_params *p, PyObject *name)
{
    const char *text = PyUnicode_AsUTF8(name);
    if (text == NULL)
        return -1;
    for (int i = 0; i < p->count; i++)
        if (strcmp(text, p->names[i]) == 0)
            return i;
    return -1;
}

int qmm_py_parse(const qmm_py_params *p, PyObject *const *args, Py_ssize_t nargs,
                 PyObject *kwnames, PyObject **values)
{
    if (nargs > p->positional) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)",
                     p->fn, p->positional, nargs);
        return -1;
    }
    for (int i = 0; i < p->count; i++)
        values[i] = i < nargs ? args[i] : NULL;
    const Py_ssize_t keywords = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < keywords; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        const int i = index_of(p, name);
        if (i < 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                         p->fn, name);
            return -1;
        }
        if (values[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", p->fn,
                         p->names[i]);
            return -1;
        }
        values[i] = args[nargs + k];
    }
    for (int i = 0; i < p->required; i++)
        if (values[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", p->fn,
                         p->names[i]);
            return -1;
        }
    return 0;
}
