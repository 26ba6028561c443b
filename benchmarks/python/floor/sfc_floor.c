/* The floor of the design for Python: a type whose next_id() does what
 * Generator.next_id() does at the least (benchmarks/floor/floor.h) and
 * returns the ID as a Python int, as the binding does. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "floor.h"

/* The state in native memory of its own, as the binding's generator is (not
 * on the object's cache line, which every call's reference counting writes). */
typedef struct {
  PyObject_HEAD floor_gen *gen;
} FloorObject;

static PyObject *Floor_new(PyTypeObject *type, PyObject *args,
                           PyObject *kwargs) {
  static char *names[] = {"epoch_ms", "node_bits", "seq_bits", "node", NULL};
  long long epoch_ms;
  unsigned node_bits, seq_bits;
  unsigned long long node;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LIIK", names, &epoch_ms,
                                   &node_bits, &seq_bits, &node))
    return NULL;
  if (seq_bits < 1 || node_bits + seq_bits > 62 || node >> node_bits) {
    PyErr_SetString(PyExc_ValueError, "sfc_floor: bad widths or node");
    return NULL;
  }
  FloorObject *self = (FloorObject *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->gen = aligned_alloc(64, 64);
  if (!self->gen) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  floor_init(self->gen, epoch_ms, node_bits, seq_bits, node);
  return (PyObject *)self;
}

static void Floor_dealloc(PyObject *op) {
  free(((FloorObject *)op)->gen);
  Py_TYPE(op)->tp_free(op);
}

static PyObject *Floor_next_id(PyObject *op, PyObject *Py_UNUSED(unused)) {
  return PyLong_FromUnsignedLongLong(floor_next(((FloorObject *)op)->gen));
}

static PyMethodDef Floor_methods[] = {
    {"next_id", Floor_next_id, METH_NOARGS, "The next ID, at the floor."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FloorType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sfc_floor.Floor",
    .tp_basicsize = sizeof(FloorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Floor(epoch_ms, node_bits, seq_bits, node): clock read + CAS.",
    .tp_new = Floor_new,
    .tp_dealloc = Floor_dealloc,
    .tp_methods = Floor_methods,
};

static struct PyModuleDef floor_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sfc_floor",
    .m_doc = "The floor of the design: a minimal binding doing next_id()'s "
             "work.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit_sfc_floor(void) {
  if (PyType_Ready(&FloorType) < 0) return NULL;
  PyObject *m = PyModule_Create(&floor_module);
  if (m && PyModule_AddObjectRef(m, "Floor", (PyObject *)&FloorType) < 0)
    Py_CLEAR(m);
  return m;
}
