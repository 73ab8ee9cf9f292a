/* The module qmm_encoder._engine: examples/encoder's engine (qmm-encode) as
 * the type Encoder. The tokenizer and the sentence-level API are Python
 * (qmm_encoder/__init__.py).
 *
 * The module holds a copy of qmm of its own, linked in statically and hidden
 * (python/python_module.cmake): qmm.set_num_threads does not reach its thread
 * count, so each call takes the count to run on (the qmm package's, which
 * qmm_encoder passes). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>

#include <string.h>

#include <encoder.h>

typedef struct py_encoder {
    PyObject_HEAD
    encoder *engine;
    /* The engine keeps its activations: one call at a time, the GIL released. */
    PyThread_type_lock lock;
} py_encoder;

static PyObject *py_encoder_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    (void)args;
    (void)kwargs;
    py_encoder *self = (py_encoder *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static int py_encoder_init(PyObject *self_obj, PyObject *args, PyObject *kwargs)
{
    py_encoder *self = (py_encoder *)self_obj;
    static char *keywords[] = {"path", "activations", NULL};
    PyObject *path;
    const char *activations = "per-token";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|$s:Encoder", keywords,
                                     PyUnicode_FSConverter, &path, &activations))
        return -1;
    encoder_activations mode;
    if (strcmp(activations, "per-token") == 0) {
        mode = ENCODER_ACTIVATIONS_PER_TOKEN;
    } else if (strcmp(activations, "per-sequence") == 0) {
        mode = ENCODER_ACTIVATIONS_PER_SEQUENCE;
    } else {
        Py_DECREF(path);
        PyErr_Format(PyExc_ValueError,
                     "qmm_encoder: activations must be 'per-token' or 'per-sequence', not '%s'",
                     activations);
        return -1;
    }
    encoder *e = NULL;
    char why[256];
    encoder_status st;
    Py_BEGIN_ALLOW_THREADS
    st = encoder_load(PyBytes_AS_STRING(path), &e, why, sizeof why);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (st != ENCODER_OK) {
        PyErr_Format(st == ENCODER_ERR_IO       ? PyExc_OSError
                     : st == ENCODER_ERR_NOMEM ? PyExc_MemoryError
                                               : PyExc_ValueError,
                     "qmm_encoder: %s", why);
        return -1;
    }
    encoder_set_activations(e, mode);
    encoder_free(self->engine);
    self->engine = e;
    return 0;
}

static void py_encoder_dealloc(PyObject *self_obj)
{
    py_encoder *self = (py_encoder *)self_obj;
    encoder_free(self->engine);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self_obj)->tp_free(self_obj);
}

static int loaded(py_encoder *self)
{
    if (self->engine == NULL)
        PyErr_SetString(PyExc_ValueError, "qmm_encoder: no model loaded");
    return self->engine != NULL;
}

/* embed_ids(ids, offsets, hidden=False, *, threads=0): ids an int32 array,
 * offsets an intp array of count + 1 entries; float32 [count, hidden] (or
 * [tokens, hidden] with hidden=True), on `threads` threads (0: qmm's default,
 * QMM_NUM_THREADS or the CPUs). */
static PyObject *py_encoder_embed_ids(PyObject *self_obj, PyObject *args, PyObject *kwargs)
{
    py_encoder *self = (py_encoder *)self_obj;
    static char *keywords[] = {"ids", "offsets", "hidden", "threads", NULL};
    PyObject *ids_obj, *offsets_obj;
    int hidden = 0;
    Py_ssize_t threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|p$n:embed_ids", keywords, &ids_obj,
                                     &offsets_obj, &hidden, &threads) ||
        !loaded(self))
        return NULL;
    if (threads < 0 || threads > QMM_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "qmm_encoder: threads must be 0 to %d, not %zd",
                     QMM_MAX_THREADS, threads);
        return NULL;
    }
    PyArrayObject *ids = (PyArrayObject *)PyArray_FROMANY(ids_obj, NPY_INT32, 1, 1,
                                                          NPY_ARRAY_IN_ARRAY);
    PyArrayObject *offsets = (PyArrayObject *)PyArray_FROMANY(offsets_obj, NPY_INTP, 1, 1,
                                                              NPY_ARRAY_IN_ARRAY);
    PyArrayObject *out = NULL;
    if (ids == NULL || offsets == NULL)
        goto done;
    npy_intp count = PyArray_DIM(offsets, 0) - 1;
    const npy_intp *off = PyArray_DATA(offsets);
    if (count < 0 || off[0] != 0 || off[count] != PyArray_DIM(ids, 0)) {
        PyErr_SetString(PyExc_ValueError,
                        "qmm_encoder: offsets must run from 0 to len(ids), one more than the "
                        "sequences");
        goto done;
    }
    for (npy_intp s = 0; s < count; s++) {
        if (off[s + 1] < off[s]) {
            PyErr_SetString(PyExc_ValueError, "qmm_encoder: offsets must not decrease");
            goto done;
        }
    }
    const encoder_config *c = encoder_get_config(self->engine);
    npy_intp shape[2] = {hidden ? off[count] : count, (npy_intp)c->hidden};
    out = (PyArrayObject *)PyArray_SimpleNew(2, shape, NPY_FLOAT32);
    if (out == NULL)
        goto done;
    encoder_status st;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    qmm_set_num_threads((size_t)threads);
    st = (hidden ? encoder_hidden_states : encoder_embed)(
        self->engine, (size_t)count, (const size_t *)off, PyArray_DATA(ids), PyArray_DATA(out));
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    if (st != ENCODER_OK) {
        PyErr_Format(st == ENCODER_ERR_NOMEM ? PyExc_MemoryError
                     : st == ENCODER_ERR_ARG ? PyExc_ValueError
                                             : PyExc_RuntimeError,
                     "qmm_encoder: %s (token ids below %u, 1 to %u per sequence)",
                     encoder_status_str(st), c->vocab, c->max_positions);
        Py_CLEAR(out);
    }
done:
    Py_XDECREF(ids);
    Py_XDECREF(offsets);
    return (PyObject *)out;
}

static PyObject *py_encoder_config(PyObject *self_obj, void *closure)
{
    (void)closure;
    py_encoder *self = (py_encoder *)self_obj;
    if (!loaded(self))
        return NULL;
    const encoder_config *c = encoder_get_config(self->engine);
    return Py_BuildValue(
        "{sIsIsIsIsIsIsIsssOsssdsOsIsIsIsIsI}", "layers", c->layers, "hidden", c->hidden,
        "heads", c->heads, "ffn", c->ffn, "vocab", c->vocab, "max_positions", c->max_positions,
        "type_vocab", c->type_vocab, "pooling", c->pooling == ENCODER_POOL_CLS ? "cls" : "mean",
        "normalize", c->normalize ? Py_True : Py_False, "activation", "gelu", "layer_norm_eps",
        (double)c->layer_norm_eps, "lowercase", c->lowercase ? Py_True : Py_False, "max_tokens",
        c->max_tokens, "cls_id", c->cls_id, "sep_id", c->sep_id, "pad_id", c->pad_id, "unk_id",
        c->unk_id);
}

static PyObject *py_encoder_vocab(PyObject *self_obj, void *closure)
{
    (void)closure;
    py_encoder *self = (py_encoder *)self_obj;
    if (!loaded(self))
        return NULL;
    size_t bytes;
    const char *v = encoder_vocab(self->engine, &bytes);
    if (v == NULL)
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize(v, (Py_ssize_t)bytes);
}

static PyMethodDef py_encoder_methods[] = {
    {"embed_ids", (PyCFunction)(void (*)(void))py_encoder_embed_ids,
     METH_VARARGS | METH_KEYWORDS,
     "embed_ids(ids, offsets, hidden=False, *, threads=0): embeddings of token-id "
     "sequences"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef py_encoder_getset[] = {
    {"config", py_encoder_config, NULL, "the model's configuration", NULL},
    {"vocab", py_encoder_vocab, NULL, "the WordPiece vocabulary, '\\n'-separated bytes", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject py_encoder_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "qmm_encoder._engine.Encoder",
    .tp_basicsize = sizeof(py_encoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Encoder(path, *, activations='per-token'): a qmm-encode weight file loaded "
              "(use qmm_encoder.load)",
    .tp_new = py_encoder_new,
    .tp_init = py_encoder_init,
    .tp_dealloc = py_encoder_dealloc,
    .tp_methods = py_encoder_methods,
    .tp_getset = py_encoder_getset,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "qmm_encoder._engine",
    .m_doc = "qmm-encode's engine; use it through the qmm_encoder package.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__engine(void)
{
    import_array();
    if (PyType_Ready(&py_encoder_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m != NULL && PyModule_AddObjectRef(m, "Encoder", (PyObject *)&py_encoder_type) < 0)
        Py_CLEAR(m);
    return m;
}
