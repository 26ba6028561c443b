/*
 * _snowflake_c — the CPython glue over the snowflake-c core.
 *
 * Thin on purpose: every layout, ID, JSON and clock decision is the core's.
 * This file converts Python values to core arguments and back, maps
 * sfc_status to exception classes, and waits for the clock in Python's idiom
 * (GIL released, signals checked between short pauses).
 *
 * Structure: multi-phase init, all state in the module state, heap types.
 * The limited API of Python 3.10 only (the build defines Py_LIMITED_API), so
 * that one abi3 wheel per platform serves every CPython from 3.10 on: no
 * struct internals, no access macros, buffers through memoryview.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "snowflake_c.h"

#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#define Py_T_PYSSIZET T_PYSSIZET
#define Py_READONLY READONLY
#endif

#ifdef Py_GIL_DISABLED
#include <stdatomic.h>
#endif

/* Longest single pause with the GIL released: signals (Ctrl-C) are checked
 * at least this often during a long wait. */
#define MAX_PAUSE_US 20000
/* Batch size converted to Python ints per call into the core. */
#define CHUNK 1024
/* Above this many IDs, fill() runs the core with the GIL released. */
#define FILL_RELEASE_GIL 4096
/* IDs fill() generates at a time before copying them into the buffer. */
#define FILL_CHUNK 65536

/* ===================================================================== */
/* Module state                                                          */
/* ===================================================================== */

typedef struct {
  PyObject *error;                    /* SnowflakeError */
  PyObject *errors[SFC_STATUS_COUNT]; /* by status; NULL for Ok and Wait */
  PyTypeObject *layout_type;
  PyTypeObject *generator_type;
  PyTypeObject *parts_type;
  PyTypeObject *field_type;
  PyObject *datetime_type;
  PyObject *timedelta_type;
  PyObject *unix_epoch; /* datetime(1970, 1, 1, tzinfo=timezone.utc) */
  PyObject *one_ms;     /* timedelta(milliseconds=1) */
  PyObject *one_us;     /* timedelta(microseconds=1) */
  PyObject *generators; /* weakref.WeakSet of live generators (fork hook) */
} module_state;

static inline module_state *get_state(PyObject *module) {
  return (module_state *)PyModule_GetState(module);
}

static inline module_state *type_state(PyTypeObject *tp) {
  return (module_state *)PyType_GetModuleState(tp);
}

/* ===================================================================== */
/* Errors                                                                */
/* ===================================================================== */

static PyObject *error_class(module_state *st, sfc_status status) {
  if ((int)status >= 0 && status < SFC_STATUS_COUNT && st->errors[status])
    return st->errors[status];
  return st->error;
}

static PyObject *raise_error(module_state *st, const sfc_error *err) {
  PyErr_SetString(error_class(st, err->status), err->message);
  return NULL;
}

/* Raises with a message of our own, for argument checks the core cannot see
 * (wrong Python types are TypeError, not this). */
static PyObject *raise_kind(module_state *st, sfc_status status,
                            const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  PyObject *msg = PyUnicode_FromFormatV(format, ap);
  va_end(ap);
  if (msg) {
    PyErr_SetObject(error_class(st, status), msg);
    Py_DECREF(msg);
  }
  return NULL;
}

/* Raises `err` with the IDs issued before the failure as `.ids`. */
static PyObject *raise_error_with_ids(module_state *st, const sfc_error *err,
                                      PyObject *ids) {
  PyObject *cls = error_class(st, err->status);
  PyObject *exc = PyObject_CallFunction(cls, "s", err->message);
  if (!exc) return NULL;
  if (PyObject_SetAttrString(exc, "ids", ids) < 0) {
    Py_DECREF(exc);
    return NULL;
  }
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
  return NULL;
}

/* The qualified name of obj's type, "int" for builtins (what %T prints in
 * newer CPython; tp_name is not part of the limited API). */
static PyObject *type_name(PyObject *obj) {
  PyObject *type = (PyObject *)Py_TYPE(obj);
  PyObject *module = PyObject_GetAttrString(type, "__module__");
  PyObject *name = module ? PyObject_GetAttrString(type, "__qualname__") : NULL;
  PyObject *result = NULL;
  if (name) {
    if (PyUnicode_Check(module) &&
        PyUnicode_CompareWithASCIIString(module, "builtins") != 0)
      result = PyUnicode_FromFormat("%U.%U", module, name);
    else
      result = Py_NewRef(name);
  }
  Py_XDECREF(module);
  Py_XDECREF(name);
  return result;
}

/* Raises TypeError "<format>, not <obj's type>". */
static void type_error(PyObject *obj, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  PyObject *what = PyUnicode_FromFormatV(format, ap);
  va_end(ap);
  PyObject *name = what ? type_name(obj) : NULL;
  if (name) PyErr_Format(PyExc_TypeError, "%U, not %U", what, name);
  Py_XDECREF(what);
  Py_XDECREF(name);
}

/* ===================================================================== */
/* Conversions                                                           */
/* ===================================================================== */

/* A str as UTF-8 for the core, refused (InvalidArgument, with the position)
 * when it holds a NUL, which C text would take for its end. */
static const char *text_arg(module_state *st, PyObject *obj, const char *what,
                            Py_ssize_t *len) {
  Py_ssize_t n = 0;
  const char *text = PyUnicode_AsUTF8AndSize(obj, &n);
  if (!text) return NULL;
  sfc_error err;
  if (sfc_text_check(what, text, (size_t)n, &err) != SFC_OK) {
    raise_error(st, &err);
    return NULL;
  }
  if (len) *len = n;
  return text;
}

static int is_datetime(module_state *st, PyObject *obj) {
  return PyObject_TypeCheck(obj, (PyTypeObject *)st->datetime_type);
}

/* An aware datetime as a whole number of `unit` (a timedelta) since 1970. */
static int datetime_to_units(module_state *st, PyObject *dt, PyObject *unit,
                             const char *what, int64_t *out) {
  PyObject *tz = PyObject_GetAttrString(dt, "tzinfo");
  if (!tz) return -1;
  int naive = tz == Py_None;
  Py_DECREF(tz);
  if (naive) {
    raise_kind(st, SFC_INVALID_ARGUMENT,
               "%s is a naive datetime; pass an aware one, e.g. "
               "datetime(..., tzinfo=timezone.utc)",
               what);
    return -1;
  }
  PyObject *delta = PyNumber_Subtract(dt, st->unix_epoch);
  if (!delta) return -1;
  PyObject *n = PyNumber_FloorDivide(delta, unit);
  Py_DECREF(delta);
  if (!n) return -1;
  long long v = PyLong_AsLongLong(n);
  Py_DECREF(n);
  if (v == -1 && PyErr_Occurred()) return -1;
  *out = v;
  return 0;
}

/* A Python int as int64_t; `what` names the argument in errors. */
static int int64_arg(module_state *st, PyObject *obj, const char *what,
                     sfc_status kind, int64_t *out) {
  if (!PyLong_Check(obj) || PyBool_Check(obj)) {
    type_error(obj, "%s must be an int", what);
    return -1;
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (overflow) {
    raise_kind(st, kind, "%s %R is out of range", what, obj);
    return -1;
  }
  *out = v;
  return 0;
}

/* Unix ms from an int (ms) or an aware datetime. */
static int time_ms_arg(module_state *st, PyObject *obj, const char *what,
                       int64_t *out) {
  if (is_datetime(st, obj))
    return datetime_to_units(st, obj, st->one_ms, what, out);
  if (PyUnicode_Check(obj)) {
    const char *text = text_arg(st, obj, what, NULL);
    if (!text) return -1;
    sfc_error err;
    if (sfc_epoch_parse(text, out, &err) != SFC_OK) {
      raise_kind(st, SFC_INVALID_ARGUMENT,
                 "%s %R is neither Unix milliseconds nor ISO-8601 UTC", what,
                 obj);
      return -1;
    }
    return 0;
  }
  if (!PyLong_Check(obj) || PyBool_Check(obj)) {
    type_error(obj,
               "%s must be Unix milliseconds (int), an ISO-8601 str or an "
               "aware datetime",
               what);
    return -1;
  }
  return int64_arg(st, obj, what, SFC_INVALID_ARGUMENT, out);
}

static int long_is_negative(PyObject *obj) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) return -1;
  return overflow < 0 || (overflow == 0 && v < 0);
}

/* An ID from an int or a decimal string. */
static int id_arg(module_state *st, PyObject *obj, uint64_t *out) {
  sfc_error err;
  if (PyUnicode_Check(obj)) {
    Py_ssize_t len = 0;
    const char *text = PyUnicode_AsUTF8AndSize(obj, &len);
    if (!text) return -1;
    if (sfc_id_parse_n(text, (size_t)len, out, &err) != SFC_OK) {
      raise_error(st, &err);
      return -1;
    }
    return 0;
  }
  if (!PyLong_Check(obj) || PyBool_Check(obj)) {
    type_error(obj, "an ID must be an int or a decimal str");
    return -1;
  }
  int negative = long_is_negative(obj);
  if (negative < 0) return -1;
  if (negative) {
    raise_kind(st, SFC_INVALID_ARGUMENT,
               "ID %R is negative; IDs are unsigned 64-bit integers", obj);
    return -1;
  }
  unsigned long long v = PyLong_AsUnsignedLongLong(obj);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
    raise_kind(st, SFC_INVALID_ARGUMENT,
               "ID %R does not fit in 64 bits; IDs are unsigned 64-bit "
               "integers",
               obj);
    return -1;
  }
  *out = v;
  return 0;
}

/* A duration in ms from None (-1: the core's default), an int (ms) or a
 * timedelta; the core rounds it up to whole ms and checks its range. */
static int duration_ms_arg(module_state *st, PyObject *obj, const char *what,
                           int64_t *out) {
  if (obj == Py_None) {
    *out = -1;
    return 0;
  }
  int64_t seconds, nanos;
  if (PyObject_TypeCheck(obj, (PyTypeObject *)st->timedelta_type)) {
    /* days, seconds (0..86399), microseconds (0..999999): normalized. */
    PyObject *parts[3] = {PyObject_GetAttrString(obj, "days"),
                          PyObject_GetAttrString(obj, "seconds"),
                          PyObject_GetAttrString(obj, "microseconds")};
    long long v[3] = {0, 0, 0};
    int ok = 1;
    for (int i = 0; i < 3; i++) {
      if (!parts[i]) {
        ok = 0;
        continue;
      }
      v[i] = PyLong_AsLongLong(parts[i]);
      if (v[i] == -1 && PyErr_Occurred()) ok = 0;
    }
    for (int i = 0; i < 3; i++)
      Py_XDECREF(parts[i]);
    if (!ok) return -1;
    seconds = (int64_t)v[0] * 86400 + (int64_t)v[1]; /* |days| < 10^9 */
    nanos = (int64_t)v[2] * 1000;
  } else if (PyLong_Check(obj) && !PyBool_Check(obj)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    int64_t ms = overflow < 0 ? INT64_MIN : overflow > 0 ? INT64_MAX : v;
    sfc_error err;
    if (sfc_duration_ms_from_double(what, (double)ms, out, &err) != SFC_OK) {
      raise_error(st, &err);
      return -1;
    }
    return 0;
  } else {
    type_error(obj, "%s must be milliseconds (int) or a timedelta", what);
    return -1;
  }
  sfc_error err;
  if (sfc_duration_ms(what, seconds, nanos, out, &err) != SFC_OK) {
    raise_error(st, &err);
    return -1;
  }
  return 0;
}

/* One (key, value) item of PyMapping_Items, borrowed; a mapping whose
 * items() gives something else is a TypeError. */
static int item_pair(PyObject *item, PyObject **key, PyObject **value) {
  if (!item) return -1;
  if (!PyTuple_Check(item) || PyTuple_Size(item) != 2) {
    type_error(item, "a mapping's items() must give (key, value) pairs");
    return -1;
  }
  *key = PyTuple_GetItem(item, 0);
  *value = PyTuple_GetItem(item, 1);
  return 0;
}

static int str_arg(module_state *st, PyObject *obj, const char *what,
                   const char **out) {
  if (!PyUnicode_Check(obj)) {
    type_error(obj, "%s must be a str", what);
    return -1;
  }
  *out = text_arg(st, obj, what, NULL);
  return *out ? 0 : -1;
}

/* ===================================================================== */
/* Layout                                                                */
/* ===================================================================== */

typedef struct {
  PyObject_HEAD sfc_layout layout;
  PyObject *name; /* the preset's name, or None */
} LayoutObject;

static PyObject *layout_wrap(module_state *st, const sfc_layout *layout,
                             PyObject *name) {
  LayoutObject *self = PyObject_New(LayoutObject, st->layout_type);
  if (!self) return NULL;
  self->layout = *layout;
  self->name = Py_NewRef(name ? name : Py_None);
  return (PyObject *)self;
}

/* The epoch argument: Unix ms (int), text for sfc_epoch_parse, or an aware
 * datetime. */
static int epoch_arg(module_state *st, PyObject *obj, int64_t *out) {
  if (PyUnicode_Check(obj)) {
    const char *text = text_arg(st, obj, "epoch", NULL);
    if (!text) return -1;
    sfc_error err;
    if (sfc_epoch_parse(text, out, &err) != SFC_OK) {
      raise_error(st, &err);
      return -1;
    }
    return 0;
  }
  if (is_datetime(st, obj))
    return datetime_to_units(st, obj, st->one_ms, "epoch", out);
  if (PyLong_Check(obj) && !PyBool_Check(obj))
    return int64_arg(st, obj, "epoch", SFC_INVALID_LAYOUT, out);
  type_error(obj,
             "epoch must be Unix milliseconds (int), an ISO-8601 str or an "
             "aware datetime");
  return -1;
}

static int layout_from_preset(module_state *st, PyObject *name_obj,
                              sfc_layout *out) {
  const char *name;
  if (str_arg(st, name_obj, "preset", &name) < 0) return -1;
  sfc_error err;
  if (sfc_layout_preset(name, out, &err) != SFC_OK) {
    raise_error(st, &err);
    return -1;
  }
  return 0;
}

static int layout_from_spec(module_state *st, PyObject *spec_obj,
                            PyObject *epoch_obj, sfc_layout *out) {
  const char *spec;
  int64_t epoch_ms;
  if (str_arg(st, spec_obj, "layout", &spec) < 0) return -1;
  if (epoch_arg(st, epoch_obj, &epoch_ms) < 0) return -1;
  sfc_error err;
  if (sfc_layout_parse(spec, epoch_ms, out, &err) != SFC_OK) {
    raise_error(st, &err);
    return -1;
  }
  return 0;
}

/* The layout named by the usual keyword trio: `layout` (a Layout, or a spec
 * string with `epoch`), or `preset`, or else the "default" preset. Returns a
 * new reference to a Layout object. */
static PyObject *resolve_layout(module_state *st, PyObject *layout,
                                PyObject *preset, PyObject *epoch) {
  if (layout == Py_None) layout = NULL;
  if (preset == Py_None) preset = NULL;
  if (epoch == Py_None) epoch = NULL;
  if (layout && preset)
    return raise_kind(st, SFC_INVALID_ARGUMENT,
                      "give either preset= or layout=, not both");
  if (layout && PyObject_TypeCheck(layout, st->layout_type)) {
    if (epoch)
      return raise_kind(st, SFC_INVALID_ARGUMENT,
                        "epoch= goes with a layout spec string; a Layout "
                        "object already has its epoch");
    return Py_NewRef(layout);
  }
  sfc_layout parsed;
  if (layout) {
    if (!PyUnicode_Check(layout)) {
      type_error(layout, "layout must be a Layout or a spec str");
      return NULL;
    }
    if (!epoch)
      return raise_kind(st, SFC_INVALID_ARGUMENT,
                        "a layout spec needs its epoch: pass epoch= (Unix "
                        "ms, an ISO-8601 UTC instant or an aware datetime)");
    if (layout_from_spec(st, layout, epoch, &parsed) < 0) return NULL;
    return layout_wrap(st, &parsed, NULL);
  }
  if (epoch)
    return raise_kind(st, SFC_INVALID_ARGUMENT,
                      "epoch= goes with layout=; a preset has its own epoch");
  PyObject *name = preset;
  PyObject *fallback = NULL;
  if (!name) {
    fallback = PyUnicode_FromString("default");
    if (!fallback) return NULL;
    name = fallback;
  }
  PyObject *result = NULL;
  if (layout_from_preset(st, name, &parsed) == 0)
    result = layout_wrap(st, &parsed, name);
  Py_XDECREF(fallback);
  return result;
}

static PyObject *Layout_new(PyTypeObject *type, PyObject *args,
                            PyObject *kwargs) {
  static char *kwlist[] = {"spec", "epoch", NULL};
  PyObject *spec, *epoch;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:Layout", kwlist, &spec,
                                   &epoch))
    return NULL;
  module_state *st = type_state(type);
  sfc_layout layout;
  if (layout_from_spec(st, spec, epoch, &layout) < 0) return NULL;
  return layout_wrap(st, &layout, NULL);
}

static PyObject *Layout_preset(PyObject *type, PyObject *name) {
  module_state *st = type_state((PyTypeObject *)type);
  sfc_layout layout;
  if (layout_from_preset(st, name, &layout) < 0) return NULL;
  return layout_wrap(st, &layout, name);
}

static void Layout_dealloc(PyObject *op) {
  LayoutObject *self = (LayoutObject *)op;
  PyTypeObject *tp = Py_TYPE(op);
  Py_XDECREF(self->name);
  freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  tp_free(op);
  Py_DECREF(tp);
}

static PyObject *layout_spec_str(const sfc_layout *layout) {
  char buf[SFC_SPEC_MAX];
  size_t n = sfc_layout_spec(layout, buf, sizeof buf);
  if (n >= sizeof buf) n = sizeof buf - 1;
  return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)n);
}

static PyObject *Layout_get_spec(PyObject *op, void *closure) {
  (void)closure;
  return layout_spec_str(&((LayoutObject *)op)->layout);
}

static PyObject *Layout_get_name(PyObject *op, void *closure) {
  (void)closure;
  return Py_NewRef(((LayoutObject *)op)->name);
}

static PyObject *Layout_get_epoch_ms(PyObject *op, void *closure) {
  (void)closure;
  return PyLong_FromLongLong(((LayoutObject *)op)->layout.epoch_ms);
}

static PyObject *ms_to_datetime(module_state *st, int64_t ms) {
  PyObject *delta =
      PyObject_CallFunction(st->timedelta_type, "iiiL", 0, 0, 0, (long long)ms);
  if (!delta) return NULL;
  PyObject *dt = PyNumber_Add(st->unix_epoch, delta);
  Py_DECREF(delta);
  return dt;
}

static PyObject *us_to_datetime(module_state *st, int64_t us) {
  PyObject *delta =
      PyObject_CallFunction(st->timedelta_type, "iiL", 0, 0, (long long)us);
  if (!delta) return NULL;
  PyObject *dt = PyNumber_Add(st->unix_epoch, delta);
  Py_DECREF(delta);
  return dt;
}

static PyObject *Layout_get_epoch(PyObject *op, void *closure) {
  (void)closure;
  return ms_to_datetime(type_state(Py_TYPE(op)),
                        ((LayoutObject *)op)->layout.epoch_ms);
}

static PyObject *Layout_get_unit_us(PyObject *op, void *closure) {
  (void)closure;
  return PyLong_FromLongLong(((LayoutObject *)op)->layout.unit_us);
}

static PyObject *Layout_get_total_bits(PyObject *op, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLong(((LayoutObject *)op)->layout.total_bits);
}

static PyObject *Layout_get_fields(PyObject *op, void *closure) {
  (void)closure;
  const sfc_layout *layout = &((LayoutObject *)op)->layout;
  module_state *st = type_state(Py_TYPE(op));
  PyObject *tuple = PyTuple_New(layout->field_count);
  if (!tuple) return NULL;
  for (unsigned i = 0; i < layout->field_count; i++) {
    const sfc_field *f = &layout->fields[i];
    PyObject *item = PyStructSequence_New(st->field_type);
    if (!item) {
      Py_DECREF(tuple);
      return NULL;
    }
    PyObject *values[5] = {PyUnicode_FromString(f->name),
                           PyUnicode_FromString(sfc_field_kind_name(f->kind)),
                           PyLong_FromUnsignedLong(f->bits),
                           PyLong_FromUnsignedLong(f->shift),
                           PyLong_FromUnsignedLongLong(f->max)};
    for (int k = 0; k < 5; k++) {
      if (!values[k]) {
        for (int j = k + 1; j < 5; j++)
          Py_XDECREF(values[j]);
        Py_DECREF(item);
        Py_DECREF(tuple);
        return NULL;
      }
      PyStructSequence_SetItem(item, k, values[k]);
    }
    PyTuple_SetItem(tuple, i, item);
  }
  return tuple;
}

static PyObject *Layout_get_node_fields(PyObject *op, void *closure) {
  (void)closure;
  const sfc_layout *layout = &((LayoutObject *)op)->layout;
  PyObject *list = PyList_New(0);
  if (!list) return NULL;
  for (unsigned i = 0; i < layout->field_count; i++) {
    if (layout->fields[i].kind != SFC_FIELD_NODE) continue;
    PyObject *name = PyUnicode_FromString(layout->fields[i].name);
    if (!name || PyList_Append(list, name) < 0) {
      Py_XDECREF(name);
      Py_DECREF(list);
      return NULL;
    }
    Py_DECREF(name);
  }
  PyObject *tuple = PyList_AsTuple(list);
  Py_DECREF(list);
  return tuple;
}

static PyObject *Layout_get_ids_per_second(PyObject *op, void *closure) {
  (void)closure;
  sfc_layout_info info;
  sfc_layout_describe(&((LayoutObject *)op)->layout, &info);
  return PyFloat_FromDouble(info.ids_per_second);
}

static PyObject *Layout_get_node_capacity(PyObject *op, void *closure) {
  (void)closure;
  sfc_layout_info info;
  sfc_layout_describe(&((LayoutObject *)op)->layout, &info);
  return PyLong_FromDouble(info.node_capacity);
}

static PyObject *Layout_get_time_end_ms(PyObject *op, void *closure) {
  (void)closure;
  sfc_layout_info info;
  sfc_layout_describe(&((LayoutObject *)op)->layout, &info);
  return PyLong_FromLongLong(info.time_end_ms);
}

static PyObject *Layout_get_time_end(PyObject *op, void *closure) {
  (void)closure;
  sfc_layout_info info;
  sfc_layout_describe(&((LayoutObject *)op)->layout, &info);
  char iso[SFC_ISO_MAX];
  size_t n = sfc_format_iso(info.time_end_ms, iso, sizeof iso);
  if (n >= sizeof iso) n = sizeof iso - 1;
  return PyUnicode_FromStringAndSize(iso, (Py_ssize_t)n);
}

static PyObject *Layout_get_max_id(PyObject *op, void *closure) {
  (void)closure;
  sfc_layout_info info;
  sfc_layout_describe(&((LayoutObject *)op)->layout, &info);
  return PyLong_FromUnsignedLongLong(info.max_id);
}

static PyObject *Layout_describe(PyObject *op, PyObject *unused) {
  (void)unused;
  static const struct {
    const char *key;
    getter get;
  } items[] = {
      {"name", Layout_get_name},
      {"spec", Layout_get_spec},
      {"epoch_ms", Layout_get_epoch_ms},
      {"unit_us", Layout_get_unit_us},
      {"total_bits", Layout_get_total_bits},
      {"ids_per_second", Layout_get_ids_per_second},
      {"node_capacity", Layout_get_node_capacity},
      {"time_end_ms", Layout_get_time_end_ms},
      {"time_end", Layout_get_time_end},
      {"max_id", Layout_get_max_id},
  };
  PyObject *dict = PyDict_New();
  if (!dict) return NULL;
  for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
    PyObject *v = items[i].get(op, NULL);
    if (!v || PyDict_SetItemString(dict, items[i].key, v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(dict);
      return NULL;
    }
    Py_DECREF(v);
  }
  const sfc_layout *layout = &((LayoutObject *)op)->layout;
  PyObject *fields = PyList_New(layout->field_count);
  if (!fields) {
    Py_DECREF(dict);
    return NULL;
  }
  for (unsigned i = 0; i < layout->field_count; i++) {
    const sfc_field *f = &layout->fields[i];
    PyObject *d = Py_BuildValue(
        "{sssssIsIsK}", "name", f->name, "kind", sfc_field_kind_name(f->kind),
        "bits", f->bits, "shift", f->shift, "max", (unsigned long long)f->max);
    if (!d) {
      Py_DECREF(fields);
      Py_DECREF(dict);
      return NULL;
    }
    PyList_SetItem(fields, i, d);
  }
  int r = PyDict_SetItemString(dict, "fields", fields);
  Py_DECREF(fields);
  if (r < 0) {
    Py_DECREF(dict);
    return NULL;
  }
  return dict;
}

static PyObject *Layout_repr(PyObject *op) {
  LayoutObject *self = (LayoutObject *)op;
  if (self->name != Py_None)
    return PyUnicode_FromFormat("Layout.preset(%R)", self->name);
  PyObject *spec = layout_spec_str(&self->layout);
  if (!spec) return NULL;
  PyObject *r = PyUnicode_FromFormat("Layout(%R, %lld)", spec,
                                     (long long)self->layout.epoch_ms);
  Py_DECREF(spec);
  return r;
}

static PyObject *Layout_str(PyObject *op) {
  return layout_spec_str(&((LayoutObject *)op)->layout);
}

/* Two layouts are equal when they pack IDs the same way: same canonical
 * spec, same epoch. */
static int layout_equal(const sfc_layout *a, const sfc_layout *b) {
  if (a->epoch_ms != b->epoch_ms) return 0;
  char sa[SFC_SPEC_MAX], sb[SFC_SPEC_MAX];
  sfc_layout_spec(a, sa, sizeof sa);
  sfc_layout_spec(b, sb, sizeof sb);
  return strcmp(sa, sb) == 0;
}

static PyObject *Layout_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, Py_TYPE(a)) || (op != Py_EQ && op != Py_NE))
    Py_RETURN_NOTIMPLEMENTED;
  int eq =
      layout_equal(&((LayoutObject *)a)->layout, &((LayoutObject *)b)->layout);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t Layout_hash(PyObject *op) {
  LayoutObject *self = (LayoutObject *)op;
  PyObject *key = Py_BuildValue("(NL)", layout_spec_str(&self->layout),
                                (long long)self->layout.epoch_ms);
  if (!key) return -1;
  Py_hash_t h = PyObject_Hash(key);
  Py_DECREF(key);
  return h;
}

static PyObject *Layout_reduce(PyObject *op, PyObject *unused) {
  (void)unused;
  LayoutObject *self = (LayoutObject *)op;
  if (self->name != Py_None) {
    PyObject *preset =
        PyObject_GetAttrString((PyObject *)Py_TYPE(op), "preset");
    if (!preset) return NULL;
    return Py_BuildValue("(N(O))", preset, self->name);
  }
  return Py_BuildValue("(O(NL))", (PyObject *)Py_TYPE(op),
                       layout_spec_str(&self->layout),
                       (long long)self->layout.epoch_ms);
}

static PyMethodDef Layout_methods[] = {
    {"preset", Layout_preset, METH_O | METH_CLASS,
     "preset($type, name, /)\n--\n\nThe layout of a preset: \"default\", "
     "\"twitter\", "
     "\"discord\", \"sonyflake\", \"baidu\" or \"instagram\"."},
    {"describe", Layout_describe, METH_NOARGS,
     "describe($self, /)\n--\n\nEverything the layout can tell about itself, "
     "as a "
     "dict of plain values (JSON-ready)."},
    {"__reduce__", Layout_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Layout_getset[] = {
    {"name", Layout_get_name, NULL, "The preset's name, or None.", NULL},
    {"spec", Layout_get_spec, NULL,
     "The canonical spec, e.g. 'time:41@1ms,worker:10,seq:12'.", NULL},
    {"epoch_ms", Layout_get_epoch_ms, NULL, "The epoch in Unix milliseconds.",
     NULL},
    {"epoch", Layout_get_epoch, NULL, "The epoch as an aware UTC datetime.",
     NULL},
    {"unit_us", Layout_get_unit_us, NULL,
     "The length of one time unit (tick) in microseconds.", NULL},
    {"total_bits", Layout_get_total_bits, NULL, "Sum of the field widths.",
     NULL},
    {"fields", Layout_get_fields, NULL,
     "The fields, most significant first (name, kind, bits, shift, max).",
     NULL},
    {"node_fields", Layout_get_node_fields, NULL,
     "Names of the node fields, in layout order.", NULL},
    {"ids_per_second", Layout_get_ids_per_second, NULL,
     "The most IDs one node can issue per second.", NULL},
    {"node_capacity", Layout_get_node_capacity, NULL,
     "How many distinct node values the layout can address.", NULL},
    {"time_end_ms", Layout_get_time_end_ms, NULL,
     "The first instant (Unix ms) the time field cannot hold.", NULL},
    {"time_end", Layout_get_time_end, NULL,
     "time_end_ms as an ISO-8601 UTC string.", NULL},
    {"max_id", Layout_get_max_id, NULL, "The largest ID the layout can hold.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot Layout_slots[] = {
    {Py_tp_doc,
     "Layout(spec, epoch)\n--\n\nHow an ID is packed: fields, most "
     "significant first, and an epoch (Unix ms, ISO-8601 str or aware "
     "datetime). Layout.preset(name) gives a preset's layout."},
    {Py_tp_new, Layout_new},
    {Py_tp_dealloc, Layout_dealloc},
    {Py_tp_repr, Layout_repr},
    {Py_tp_str, Layout_str},
    {Py_tp_richcompare, Layout_richcompare},
    {Py_tp_hash, Layout_hash},
    {Py_tp_methods, Layout_methods},
    {Py_tp_getset, Layout_getset},
    {0, NULL},
};

static PyType_Spec Layout_spec = {
    .name = "snowflake_c.Layout",
    .basicsize = sizeof(LayoutObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = Layout_slots,
};

/* ===================================================================== */
/* Parts (a decoded ID)                                                  */
/* ===================================================================== */

typedef struct {
  PyObject_HEAD sfc_parts parts;
  LayoutObject *layout;
} PartsObject;

static void Parts_dealloc(PyObject *op) {
  PartsObject *self = (PartsObject *)op;
  PyTypeObject *tp = Py_TYPE(op);
  Py_XDECREF(self->layout);
  freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  tp_free(op);
  Py_DECREF(tp);
}

static PyObject *Parts_get_id(PyObject *op, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLongLong(((PartsObject *)op)->parts.id);
}

static PyObject *Parts_get_time_ms(PyObject *op, void *closure) {
  (void)closure;
  return PyLong_FromLongLong(((PartsObject *)op)->parts.time_ms);
}

static PyObject *Parts_get_time_us(PyObject *op, void *closure) {
  (void)closure;
  return PyLong_FromLongLong(((PartsObject *)op)->parts.time_us);
}

static PyObject *Parts_get_time(PyObject *op, void *closure) {
  (void)closure;
  return us_to_datetime(type_state(Py_TYPE(op)),
                        ((PartsObject *)op)->parts.time_us);
}

static PyObject *Parts_get_layout(PyObject *op, void *closure) {
  (void)closure;
  return Py_NewRef((PyObject *)((PartsObject *)op)->layout);
}

static PyObject *Parts_get_fields(PyObject *op, void *closure) {
  (void)closure;
  PartsObject *self = (PartsObject *)op;
  const sfc_layout *layout = &self->layout->layout;
  PyObject *dict = PyDict_New();
  if (!dict) return NULL;
  for (unsigned i = 0; i < layout->field_count; i++) {
    if ((int)i == layout->time_index) continue;
    PyObject *v = PyLong_FromUnsignedLongLong(self->parts.values[i]);
    if (!v || PyDict_SetItemString(dict, layout->fields[i].name, v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(dict);
      return NULL;
    }
    Py_DECREF(v);
  }
  return dict;
}

static PyObject *Parts_to_json(PyObject *op, PyObject *unused) {
  (void)unused;
  PartsObject *self = (PartsObject *)op;
  char buf[SFC_JSON_MAX];
  size_t n =
      sfc_parts_json(&self->layout->layout, &self->parts, buf, sizeof buf);
  if (n >= sizeof buf) n = sizeof buf - 1;
  return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)n);
}

/* parts["worker"]: a field's value; "time" gives the raw tick count. */
static PyObject *Parts_getitem(PyObject *op, PyObject *key) {
  PartsObject *self = (PartsObject *)op;
  if (!PyUnicode_Check(key)) {
    PyErr_SetObject(PyExc_KeyError, key);
    return NULL;
  }
  Py_ssize_t len = 0;
  const char *name = PyUnicode_AsUTF8AndSize(key, &len);
  if (!name) return NULL;
  /* "seq\0x" names no field (C would read "seq"). */
  int i = memchr(name, '\0', (size_t)len)
              ? -1
              : sfc_layout_field_index(&self->layout->layout, name);
  if (i < 0) {
    PyErr_SetObject(PyExc_KeyError, key);
    return NULL;
  }
  return PyLong_FromUnsignedLongLong(self->parts.values[i]);
}

static PyObject *Parts_repr(PyObject *op) {
  PyObject *json = Parts_to_json(op, NULL);
  if (!json) return NULL;
  PyObject *r = PyUnicode_FromFormat("<snowflake_c.Parts %U>", json);
  Py_DECREF(json);
  return r;
}

static PyObject *Parts_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, Py_TYPE(a)) || (op != Py_EQ && op != Py_NE))
    Py_RETURN_NOTIMPLEMENTED;
  PartsObject *x = (PartsObject *)a, *y = (PartsObject *)b;
  int eq = x->parts.id == y->parts.id &&
           layout_equal(&x->layout->layout, &y->layout->layout);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyMethodDef Parts_methods[] = {
    {"to_json", Parts_to_json, METH_NOARGS,
     "to_json($self, /)\n--\n\nThe canonical JSON line, byte for byte the same "
     "as "
     "the CLI's `decode --json` and every other binding's."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Parts_getset[] = {
    {"id", Parts_get_id, NULL, "The ID.", NULL},
    {"time_ms", Parts_get_time_ms, NULL,
     "Unix milliseconds of the ID's tick (rounded down).", NULL},
    {"time_us", Parts_get_time_us, NULL, "Unix microseconds of the tick.",
     NULL},
    {"time", Parts_get_time, NULL, "The tick as an aware UTC datetime.", NULL},
    {"fields", Parts_get_fields, NULL,
     "Every field but time, by name, in layout order.", NULL},
    {"layout", Parts_get_layout, NULL, "The layout used to decode.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot Parts_slots[] = {
    {Py_tp_doc, "An ID split into its time and fields (see decode())."},
    {Py_tp_dealloc, Parts_dealloc},
    {Py_tp_repr, Parts_repr},
    {Py_tp_richcompare, Parts_richcompare},
    {Py_tp_hash, PyObject_HashNotImplemented},
    {Py_mp_subscript, Parts_getitem},
    {Py_tp_methods, Parts_methods},
    {Py_tp_getset, Parts_getset},
    {0, NULL},
};

static PyType_Spec Parts_spec = {
    .name = "snowflake_c.Parts",
    .basicsize = sizeof(PartsObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = Parts_slots,
};

/* ===================================================================== */
/* Generator                                                             */
/* ===================================================================== */

/*
 * Lifetime: close() may run while another thread waits for the clock with
 * the GIL released. `busy` counts calls that may touch `gen` without holding
 * the GIL (with the GIL: only waits; free-threaded: every call); the core
 * generator is freed by close() when nothing is busy, else by the last busy
 * call on its way out.
 */
typedef struct {
  PyObject_HEAD
#ifdef Py_GIL_DISABLED
      _Atomic(sfc_generator *) gen;
  atomic_long busy;
  atomic_int closed;
#else
      sfc_generator *gen;
  long busy;
  int closed;
#endif
  PyObject *layout; /* LayoutObject */
  PyObject *weakrefs;
} GeneratorObject;

#ifdef Py_GIL_DISABLED
#define GEN(self) atomic_load_explicit(&(self)->gen, memory_order_acquire)
#define IS_CLOSED(self) atomic_load(&(self)->closed)
#define TAKE_GEN(self) atomic_exchange(&(self)->gen, NULL)
#else
#define GEN(self) ((self)->gen)
#define IS_CLOSED(self) ((self)->closed)
static sfc_generator *take_gen(GeneratorObject *self) {
  sfc_generator *g = self->gen;
  self->gen = NULL;
  return g;
}
#define TAKE_GEN(self) take_gen(self)
#endif

static void free_gen(GeneratorObject *self) {
  sfc_generator *g = TAKE_GEN(self);
  if (g) {
    PyThreadState *ts = PyEval_SaveThread();
    sfc_generator_free(g);
    PyEval_RestoreThread(ts);
  }
}

static PyObject *raise_closed(GeneratorObject *self) {
  return raise_kind(type_state(Py_TYPE(self)), SFC_INVALID_ARGUMENT,
                    "the generator is closed");
}

/* Marks a call as in progress. Returns the core generator, or NULL with an
 * exception set when closed. */
static inline sfc_generator *gen_enter(GeneratorObject *self) {
#ifdef Py_GIL_DISABLED
  atomic_fetch_add(&self->busy, 1);
  if (atomic_load(&self->closed)) {
    if (atomic_fetch_sub(&self->busy, 1) == 1) free_gen(self);
    raise_closed(self);
    return NULL;
  }
  return GEN(self);
#else
  if (!self->gen) {
    raise_closed(self);
    return NULL;
  }
  return self->gen;
#endif
}

static inline void gen_exit(GeneratorObject *self) {
#ifdef Py_GIL_DISABLED
  if (atomic_fetch_sub(&self->busy, 1) == 1 && atomic_load(&self->closed))
    free_gen(self);
#else
  (void)self;
#endif
}

/* With the GIL build, a section that runs without the GIL holds `busy`. */
static inline void unlocked_begin(GeneratorObject *self) {
#ifndef Py_GIL_DISABLED
  self->busy++;
#else
  (void)self;
#endif
}

/* Returns -1 (exception set) when the generator was closed meanwhile. */
static inline int unlocked_end(GeneratorObject *self) {
#ifndef Py_GIL_DISABLED
  if (--self->busy == 0 && self->closed) free_gen(self);
#endif
  if (IS_CLOSED(self)) {
    raise_closed(self);
    return -1;
  }
  return 0;
}

/* Waits up to `wait_us` for the clock with the GIL released, at most
 * MAX_PAUSE_US at a time, then runs signal handlers (Ctrl-C interrupts). */
static int wait_clock(GeneratorObject *self, int64_t wait_us) {
  if (wait_us > MAX_PAUSE_US) wait_us = MAX_PAUSE_US;
  if (wait_us < 0) wait_us = 0;
  unlocked_begin(self);
  PyThreadState *ts = PyEval_SaveThread();
  sfc_pause(wait_us);
  PyEval_RestoreThread(ts);
  if (unlocked_end(self) < 0) return -1;
  return PyErr_CheckSignals();
}

static int node_name_value(module_state *st, PyObject *value, const char *field,
                           int64_t *out) {
  if (PyUnicode_Check(value)) {
    const char *text = text_arg(st, value, field, NULL);
    if (!text) return -1;
    sfc_error err;
    if (sfc_node_value_parse(text, out, &err) != SFC_OK) {
      raise_error(st, &err);
      return -1;
    }
    return 0;
  }
  if (PyLong_Check(value) && !PyBool_Check(value)) {
    int64_t v;
    if (int64_arg(st, value, field, SFC_INVALID_ARGUMENT, &v) < 0) return -1;
    if (v < 0) {
      raise_kind(st, SFC_INVALID_ARGUMENT,
                 "node value %s=%lld is negative; give 0..max, \"auto\" or "
                 "\"host\"",
                 field, (long long)v);
      return -1;
    }
    *out = v;
    return 0;
  }
  type_error(value,
             "node value for %s must be an int, \"auto\", \"host\" or "
             "\"env:NAME\"",
             field);
  return -1;
}

/* Fills node[] from `node`: a mapping of field name to value, or a single
 * value for a layout with exactly one node field. `keep` receives a list
 * that owns the name strings until the generator is created. */
static int node_arg(module_state *st, PyObject *node, const sfc_layout *layout,
                    sfc_node_value *out, size_t *count, PyObject **keep) {
  *count = 0;
  *keep = NULL;
  if (node == Py_None) return 0;
  PyObject *items;
  if (PyMapping_Check(node) && !PyUnicode_Check(node)) {
    items = PyMapping_Items(node);
    if (!items) return -1;
  } else {
    int index = -1, nodes = 0;
    for (unsigned i = 0; i < layout->field_count; i++)
      if (layout->fields[i].kind == SFC_FIELD_NODE) {
        nodes++;
        index = (int)i;
      }
    if (nodes != 1) {
      raise_kind(st, SFC_INVALID_ARGUMENT,
                 "a single node value needs a layout with exactly one node "
                 "field, and this one has %d; pass a dict such as "
                 "node={\"worker\": 3}",
                 nodes);
      return -1;
    }
    items = Py_BuildValue("[(sO)]", layout->fields[index].name, node);
    if (!items) return -1;
  }
  Py_ssize_t n = PyList_Size(items);
  if (n > SFC_MAX_FIELDS) {
    Py_DECREF(items);
    raise_kind(st, SFC_INVALID_ARGUMENT,
               "%zd node values given; a layout has at most %d fields", n,
               SFC_MAX_FIELDS);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *key, *value;
    const char *name;
    if (item_pair(PyList_GetItem(items, i), &key, &value) < 0 ||
        str_arg(st, key, "a node field name", &name) < 0 ||
        node_name_value(st, value, name, &out[i].value) < 0) {
      Py_DECREF(items);
      return -1;
    }
    out[i].name = name;
  }
  *count = (size_t)n;
  *keep = items;
  return 0;
}

static int time_source_arg(module_state *st, PyObject *obj,
                           sfc_time_source *out) {
  if (obj == Py_None) return 0;
  const char *name;
  if (str_arg(st, obj, "time_source", &name) < 0) return -1;
  sfc_error err;
  if (sfc_time_source_parse(name, out, &err) != SFC_OK) {
    raise_error(st, &err);
    return -1;
  }
  return 0;
}

/* A folder given as str, bytes or os.PathLike (None: *out stays NULL),
 * as the file-system bytes the core takes. A NUL in the path is
 * InvalidArgument with its position, as for every other text (os.fsencode
 * would say ValueError). */
static int path_arg(module_state *st, PyObject *obj, const char *what,
                    PyObject **out) {
  *out = NULL;
  if (obj == Py_None) return 0;
  PyObject *path = PyOS_FSPath(obj);
  if (!path) return -1;
  sfc_error err;
  if (PyUnicode_Check(path) && !text_arg(st, path, what, NULL)) {
    Py_DECREF(path);
    return -1;
  }
  if (PyBytes_Check(path) &&
      sfc_text_check(what, PyBytes_AsString(path), (size_t)PyBytes_Size(path),
                     &err) != SFC_OK) {
    Py_DECREF(path);
    raise_error(st, &err);
    return -1;
  }
  int converted = PyUnicode_FSConverter(path, out);
  Py_DECREF(path);
  return converted ? 0 : -1;
}

static PyObject *Generator_new(PyTypeObject *type, PyObject *args,
                               PyObject *kwargs) {
  static char *kwlist[] = {
      "preset",        "layout",    "epoch",        "node",      "rollback",
      "max_wait",      "max_drift", "random_start", "state_dir", "time_source",
      "state_reserve", "guard",     "guard_dir",    NULL};
  PyObject *preset = Py_None, *layout_arg = Py_None, *epoch = Py_None;
  PyObject *node = Py_None, *rollback = Py_None, *max_wait = Py_None;
  PyObject *max_drift = Py_None, *state_dir = Py_None;
  PyObject *time_source = Py_None, *state_reserve = Py_None;
  PyObject *guard = Py_True, *guard_dir = Py_None;
  int random_start = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOOOOpOOOOO:Generator",
                                   kwlist, &preset, &layout_arg, &epoch, &node,
                                   &rollback, &max_wait, &max_drift,
                                   &random_start, &state_dir, &time_source,
                                   &state_reserve, &guard, &guard_dir))
    return NULL;
  module_state *st = type_state(type);
  /* Only True or False: a None or 0 meant as "the default" must not turn
   * the guard off. */
  if (!PyBool_Check(guard)) {
    type_error(guard, "guard must be True or False");
    return NULL;
  }

  PyObject *layout = resolve_layout(st, layout_arg, preset, epoch);
  if (!layout) return NULL;
  const sfc_layout *lay = &((LayoutObject *)layout)->layout;

  sfc_options opts;
  sfc_options_init(&opts);
  sfc_node_value nodes[SFC_MAX_FIELDS];
  PyObject *keep_nodes = NULL, *dir_bytes = NULL, *guard_bytes = NULL;
  GeneratorObject *self = NULL;
  sfc_error err;

  if (node_arg(st, node, lay, nodes, &opts.node_count, &keep_nodes) < 0)
    goto fail;
  opts.node = opts.node_count ? nodes : NULL;
  if (rollback != Py_None) {
    const char *name;
    if (str_arg(st, rollback, "rollback", &name) < 0) goto fail;
    if (sfc_rollback_parse(name, &opts.rollback, &err) != SFC_OK) {
      raise_error(st, &err);
      goto fail;
    }
  }
  if (duration_ms_arg(st, max_wait, "max_wait", &opts.max_wait_ms) < 0 ||
      duration_ms_arg(st, max_drift, "max_drift", &opts.max_drift_ms) < 0)
    goto fail;
  if (state_reserve != Py_None &&
      duration_ms_arg(st, state_reserve, "state_reserve",
                      &opts.state_reserve_ms) < 0)
    goto fail;
  opts.random_start = random_start;
  if (time_source_arg(st, time_source, &opts.time_source) < 0) goto fail;
  if (path_arg(st, state_dir, "state_dir", &dir_bytes) < 0 ||
      path_arg(st, guard_dir, "guard_dir", &guard_bytes) < 0)
    goto fail;
  opts.state_dir = dir_bytes ? PyBytes_AsString(dir_bytes) : NULL;
  opts.guard_dir = guard_bytes ? PyBytes_AsString(guard_bytes) : NULL;
  opts.guard_off = guard == Py_False;

  allocfunc tp_alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
  self = (GeneratorObject *)tp_alloc(type, 0);
  if (!self) goto fail;
  self->layout = Py_NewRef(layout);
  self->weakrefs = NULL;
  sfc_generator *gen = NULL;
  sfc_status status;
  PyThreadState *ts = PyEval_SaveThread();
  status = sfc_generator_new(lay, &opts, &gen, &err);
  PyEval_RestoreThread(ts);
  if (status != SFC_OK) {
    raise_error(st, &err);
    goto fail;
  }
  self->gen = gen;
  if (st->generators) {
    PyObject *r = PyObject_CallMethod(st->generators, "add", "O", self);
    if (!r) goto fail;
    Py_DECREF(r);
  }
  Py_XDECREF(keep_nodes);
  Py_XDECREF(dir_bytes);
  Py_XDECREF(guard_bytes);
  Py_DECREF(layout);
  return (PyObject *)self;

fail:
  Py_XDECREF(self);
  Py_XDECREF(keep_nodes);
  Py_XDECREF(dir_bytes);
  Py_XDECREF(guard_bytes);
  Py_DECREF(layout);
  return NULL;
}

static void Generator_dealloc(PyObject *op) {
  GeneratorObject *self = (GeneratorObject *)op;
  PyTypeObject *tp = Py_TYPE(op);
  if (self->weakrefs) PyObject_ClearWeakRefs(op);
  /* Nothing can be busy: every call holds a reference. */
  free_gen(self);
  Py_XDECREF(self->layout);
  freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  tp_free(op);
  Py_DECREF(tp);
}

static PyObject *Generator_next_id(PyObject *op, PyObject *unused) {
  (void)unused;
  GeneratorObject *self = (GeneratorObject *)op;
  sfc_generator *gen = gen_enter(self);
  if (!gen) return NULL;
  uint64_t id;
  int64_t wait_us;
  sfc_error err;
  for (;;) {
    sfc_status status = sfc_next_now(gen, &id, &wait_us, &err);
    if (status == SFC_OK) {
      gen_exit(self);
      return PyLong_FromUnsignedLongLong(id);
    }
    if (status != SFC_WAIT) {
      gen_exit(self);
      return raise_error(type_state(Py_TYPE(op)), &err);
    }
    if (wait_clock(self, wait_us) < 0) {
      gen_exit(self);
      return NULL;
    }
  }
}

/* Fills dst[0..n) from the core, waiting as needed. With `release`, the core
 * runs without the GIL. On failure returns -1 with *filled IDs valid and
 * `err` filled (status != SFC_OK), or with a Python exception set
 * (err->status == SFC_OK). */
static int generate(GeneratorObject *self, sfc_generator *gen, uint64_t *dst,
                    size_t n, int release, size_t *filled, sfc_error *err) {
  size_t done = 0;
  err->status = SFC_OK;
  while (done < n) {
    size_t got = 0;
    int64_t wait_us = 0;
    sfc_status status;
    if (release) {
      unlocked_begin(self);
      PyThreadState *ts = PyEval_SaveThread();
      status = sfc_next_ids_now(gen, dst + done, n - done, &got, &wait_us, err);
      PyEval_RestoreThread(ts);
      done += got;
      if (unlocked_end(self) < 0) {
        *filled = done;
        return -1;
      }
    } else {
      status = sfc_next_ids_now(gen, dst + done, n - done, &got, &wait_us, err);
      done += got;
    }
    if (status == SFC_OK) continue;
    if (status != SFC_WAIT) {
      *filled = done;
      return -1;
    }
    if (wait_clock(self, wait_us) < 0) {
      err->status = SFC_OK;
      *filled = done;
      return -1;
    }
  }
  *filled = n;
  return 0;
}

static PyObject *Generator_next_ids(PyObject *op, PyObject *arg) {
  GeneratorObject *self = (GeneratorObject *)op;
  module_state *st = type_state(Py_TYPE(op));
  if (PyBool_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "next_ids(n) needs an int, not bool");
    return NULL;
  }
  Py_ssize_t n = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
  if (n == -1 && PyErr_Occurred()) return NULL;
  if (n < 0)
    return raise_kind(st, SFC_INVALID_ARGUMENT,
                      "next_ids(n) needs n >= 0, got %zd", n);
  PyObject *list = PyList_New(n);
  if (!list) return NULL;
  sfc_generator *gen = gen_enter(self);
  if (!gen) {
    Py_DECREF(list);
    return NULL;
  }
  uint64_t buf[CHUNK];
  Py_ssize_t done = 0;
  while (done < n) {
    size_t want = (size_t)(n - done) < CHUNK ? (size_t)(n - done) : CHUNK;
    size_t got = 0;
    sfc_error err;
    int r = generate(self, gen, buf, want, 0, &got, &err);
    for (size_t i = 0; i < got; i++) {
      PyObject *v = PyLong_FromUnsignedLongLong(buf[i]);
      if (!v) {
        gen_exit(self);
        Py_DECREF(list);
        return NULL;
      }
      PyList_SetItem(list, done + (Py_ssize_t)i, v);
    }
    done += (Py_ssize_t)got;
    if (r < 0) {
      gen_exit(self);
      PyObject *partial = NULL;
      if (err.status != SFC_OK) {
        partial = PyList_GetSlice(list, 0, done);
        if (partial) raise_error_with_ids(st, &err, partial);
      }
      Py_XDECREF(partial);
      Py_DECREF(list);
      return NULL;
    }
  }
  gen_exit(self);
  return list;
}

/* Whether a buffer's struct format is a 64-bit integer; *is_signed set. */
static int int64_format(const char *fmt, int *is_signed) {
  if (!fmt) return 0;
  if (*fmt == '@' || *fmt == '=') fmt++;
#if PY_LITTLE_ENDIAN
  else if (*fmt == '<')
    fmt++;
#else
  else if (*fmt == '>' || *fmt == '!')
    fmt++;
#endif
  if (fmt[0] == '\0' || fmt[1] != '\0') return 0;
  if (strchr("QLN", fmt[0])) {
    *is_signed = 0;
    return 1;
  }
  if (strchr("qln", fmt[0])) {
    *is_signed = 1;
    return 1;
  }
  return 0;
}

/* An integer (or bool) attribute of a memoryview. */
static int view_attr(PyObject *view, const char *name, Py_ssize_t *value) {
  PyObject *v = PyObject_GetAttrString(view, name);
  if (!v) return -1;
  *value = PyNumber_AsSsize_t(v, PyExc_OverflowError);
  Py_DECREF(v);
  return *value == -1 && PyErr_Occurred() ? -1 : 0;
}

/* What fill() can write to: a writable C-contiguous buffer of 64-bit
 * integers, or of bytes whose length is a multiple of 8. Returns a byte view
 * of it (the limited API of 3.10 has no Py_buffer, so IDs are copied in
 * through memoryview slices), or NULL with an exception set. */
static PyObject *fill_target(module_state *st, PyObject *target, int signed_ok,
                             Py_ssize_t *count) {
  PyObject *view = PyMemoryView_FromObject(target);
  if (!view) return NULL;
  Py_ssize_t readonly, contiguous, itemsize, nbytes;
  PyObject *format = NULL, *bytes_view = NULL;
  if (view_attr(view, "readonly", &readonly) < 0 ||
      view_attr(view, "c_contiguous", &contiguous) < 0 ||
      view_attr(view, "itemsize", &itemsize) < 0 ||
      view_attr(view, "nbytes", &nbytes) < 0)
    goto done;
  if (readonly) {
    PyErr_SetString(PyExc_BufferError,
                    "fill() needs a writable buffer; this one is read-only");
    goto done;
  }
  if (!contiguous) {
    PyErr_SetString(PyExc_BufferError, "fill() needs a C-contiguous buffer");
    goto done;
  }
  format = PyObject_GetAttrString(view, "format");
  const char *fmt = format ? PyUnicode_AsUTF8AndSize(format, NULL) : NULL;
  if (!fmt) goto done;
  int is_signed = 0;
  if (itemsize == 8 && int64_format(fmt, &is_signed)) {
    if (is_signed && !signed_ok) {
      raise_kind(st, SFC_INVALID_ARGUMENT,
                 "this layout's IDs use all 64 bits and do not fit a "
                 "signed buffer; use array('Q') or numpy.uint64");
      goto done;
    }
  } else if (itemsize == 1 && (strcmp(fmt, "B") == 0 || strcmp(fmt, "b") == 0 ||
                               strcmp(fmt, "c") == 0)) {
    if (nbytes % 8 != 0) {
      raise_kind(st, SFC_INVALID_ARGUMENT,
                 "a byte buffer for fill() needs a length that is a "
                 "multiple of 8, got %zd",
                 nbytes);
      goto done;
    }
  } else {
    PyErr_Format(PyExc_TypeError,
                 "fill() needs a writable buffer of 64-bit integers "
                 "(array('Q'), numpy.uint64) or bytes (bytearray), not "
                 "format %.20s",
                 fmt);
    goto done;
  }
  *count = nbytes / 8;
  /* An empty view cannot be cast; nothing is written to it anyway. */
  bytes_view =
      nbytes ? PyObject_CallMethod(view, "cast", "s", "B") : Py_NewRef(view);
done:
  Py_XDECREF(format);
  Py_DECREF(view);
  return bytes_view;
}

/* Copies ids[0..n) into dst's bytes from `at`. */
static int fill_copy(PyObject *dst, Py_ssize_t at, const uint64_t *ids,
                     size_t n) {
  if (n == 0) return 0;
  Py_ssize_t len = (Py_ssize_t)(n * sizeof *ids);
  PyObject *src = PyBytes_FromStringAndSize((const char *)ids, len);
  if (!src) return -1;
  int r = PySequence_SetSlice(dst, at, at + len, src);
  Py_DECREF(src);
  return r;
}

static PyObject *Generator_fill(PyObject *op, PyObject *target) {
  GeneratorObject *self = (GeneratorObject *)op;
  module_state *st = type_state(Py_TYPE(op));
  Py_ssize_t count = 0;
  int signed_ok = ((LayoutObject *)self->layout)->layout.total_bits <= 63;
  PyObject *dst = fill_target(st, target, signed_ok, &count);
  if (!dst) return NULL;
  size_t n = (size_t)count, chunk = n < FILL_CHUNK ? n : FILL_CHUNK;
  uint64_t *ids = PyMem_Malloc(chunk ? chunk * sizeof *ids : 1);
  if (!ids) {
    Py_DECREF(dst);
    return PyErr_NoMemory();
  }
  sfc_generator *gen = gen_enter(self);
  if (!gen) {
    PyMem_Free(ids);
    Py_DECREF(dst);
    return NULL;
  }
  sfc_error err;
  err.status = SFC_OK;
  size_t done = 0;
  int r = 0;
  while (done < n && r == 0) {
    size_t want = n - done < chunk ? n - done : chunk, got = 0;
    r = generate(self, gen, ids, want, n >= FILL_RELEASE_GIL, &got, &err);
    /* IDs issued before a failure are written too, keeping its exception. */
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (fill_copy(dst, (Py_ssize_t)(done * sizeof *ids), ids, got) < 0 &&
        !type) {
      err.status = SFC_OK;
      r = -1;
    }
    if (type) PyErr_Restore(type, value, traceback);
    done += got;
  }
  gen_exit(self);
  PyMem_Free(ids);
  Py_DECREF(dst);
  if (r < 0) {
    if (err.status != SFC_OK) raise_error(st, &err);
    return NULL;
  }
  return PyLong_FromSize_t(n);
}

static PyObject *Generator_next_id_at(PyObject *op, PyObject *arg) {
  GeneratorObject *self = (GeneratorObject *)op;
  module_state *st = type_state(Py_TYPE(op));
  int64_t now_us;
  if (int64_arg(st, arg, "now_us", SFC_INVALID_ARGUMENT, &now_us) < 0)
    return NULL;
  sfc_generator *gen = gen_enter(self);
  if (!gen) return NULL;
  uint64_t id;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status = sfc_next_at(gen, now_us, &id, &wait_us, &err);
  gen_exit(self);
  if (status == SFC_OK) return Py_BuildValue("(Ki)", (unsigned long long)id, 0);
  if (status == SFC_WAIT)
    return Py_BuildValue("(OL)", Py_None, (long long)wait_us);
  return raise_error(st, &err);
}

static PyObject *Generator_next_ids_at(PyObject *op, PyObject *args) {
  GeneratorObject *self = (GeneratorObject *)op;
  module_state *st = type_state(Py_TYPE(op));
  PyObject *now_obj, *n_obj;
  if (!PyArg_ParseTuple(args, "OO:next_ids_at", &now_obj, &n_obj)) return NULL;
  if (PyBool_Check(n_obj)) {
    PyErr_SetString(PyExc_TypeError, "next_ids_at(now_us, n) needs an int n, "
                                     "not bool");
    return NULL;
  }
  Py_ssize_t n = PyNumber_AsSsize_t(n_obj, PyExc_OverflowError);
  if (n == -1 && PyErr_Occurred()) return NULL;
  int64_t now_us;
  if (int64_arg(st, now_obj, "now_us", SFC_INVALID_ARGUMENT, &now_us) < 0)
    return NULL;
  if (n < 0)
    return raise_kind(st, SFC_INVALID_ARGUMENT,
                      "next_ids_at(now_us, n) needs n >= 0, got %zd", n);
  if ((size_t)n > PY_SSIZE_T_MAX / sizeof(uint64_t)) return PyErr_NoMemory();
  uint64_t *buf = PyMem_Malloc(n ? (size_t)n * sizeof(uint64_t) : 1);
  if (!buf) return PyErr_NoMemory();
  sfc_generator *gen = gen_enter(self);
  if (!gen) {
    PyMem_Free(buf);
    return NULL;
  }
  size_t filled = 0;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status =
      sfc_next_ids_at(gen, now_us, buf, (size_t)n, &filled, &wait_us, &err);
  gen_exit(self);
  PyObject *list = PyList_New((Py_ssize_t)filled);
  if (list) {
    for (size_t i = 0; i < filled; i++) {
      PyObject *v = PyLong_FromUnsignedLongLong(buf[i]);
      if (!v) {
        Py_CLEAR(list);
        break;
      }
      PyList_SetItem(list, (Py_ssize_t)i, v);
    }
  }
  PyMem_Free(buf);
  if (!list) return NULL;
  if (status == SFC_OK || status == SFC_WAIT)
    return Py_BuildValue("(NL)", list,
                         (long long)(status == SFC_WAIT ? wait_us : 0));
  raise_error_with_ids(st, &err, list);
  Py_DECREF(list);
  return NULL;
}

static PyObject *Generator_now_us(PyObject *op, PyObject *unused) {
  (void)unused;
  GeneratorObject *self = (GeneratorObject *)op;
  sfc_generator *gen = gen_enter(self);
  if (!gen) return NULL;
  int64_t now = sfc_generator_now_us(gen);
  gen_exit(self);
  return PyLong_FromLongLong(now);
}

static PyObject *Generator_stats(PyObject *op, PyObject *unused) {
  (void)unused;
  GeneratorObject *self = (GeneratorObject *)op;
  sfc_generator *gen = gen_enter(self);
  if (!gen) return NULL;
  sfc_stats s;
  sfc_generator_stats(gen, &s);
  PyObject *node = PyDict_New(), *sources = PyDict_New();
  int ok = node && sources;
  for (unsigned i = 0; ok && i < s.node_count; i++) {
    PyObject *v = PyLong_FromUnsignedLongLong(s.node_values[i]);
    PyObject *src =
        PyUnicode_FromString(sfc_node_source_name(s.node_sources[i]));
    ok = v && src && PyDict_SetItemString(node, s.node_names[i], v) == 0 &&
         PyDict_SetItemString(sources, s.node_names[i], src) == 0;
    Py_XDECREF(v);
    Py_XDECREF(src);
  }
  gen_exit(self);
  if (!ok) {
    Py_XDECREF(node);
    Py_XDECREF(sources);
    return NULL;
  }
  return Py_BuildValue(
      "{sKsKsKsKsKsKsKsLsKsssLsLsNsNss}", "ids_issued",
      (unsigned long long)s.ids_issued, "waits", (unsigned long long)s.waits,
      "borrowed_ticks", (unsigned long long)s.borrowed_ticks, "rollbacks",
      (unsigned long long)s.rollbacks, "rollbacks_waited",
      (unsigned long long)s.rollbacks_waited, "rollbacks_refused",
      (unsigned long long)s.rollbacks_refused, "clock_bumps",
      (unsigned long long)s.clock_bumps, "last_time_ms",
      (long long)s.last_time_ms, "clock", (unsigned long long)s.clock,
      "rollback", sfc_rollback_name(s.rollback), "max_wait_ms",
      (long long)s.max_wait_ms, "max_drift_ms", (long long)s.max_drift_ms,
      "node", node, "node_sources", sources, "guard", s.guard);
}

static PyObject *Generator_get_node(PyObject *op, void *closure) {
  (void)closure;
  PyObject *stats = Generator_stats(op, NULL);
  if (!stats) return NULL;
  PyObject *node = Py_XNewRef(PyDict_GetItemString(stats, "node"));
  Py_DECREF(stats);
  return node;
}

static PyObject *Generator_close(PyObject *op, PyObject *unused) {
  (void)unused;
  GeneratorObject *self = (GeneratorObject *)op;
#ifdef Py_GIL_DISABLED
  atomic_store(&self->closed, 1);
  if (atomic_load(&self->busy) == 0) free_gen(self);
#else
  self->closed = 1;
  if (self->busy == 0) free_gen(self);
#endif
  Py_RETURN_NONE;
}

static PyObject *Generator_enter(PyObject *op, PyObject *unused) {
  (void)unused;
  if (IS_CLOSED((GeneratorObject *)op))
    return raise_closed((GeneratorObject *)op);
  return Py_NewRef(op);
}

static PyObject *Generator_exit(PyObject *op, PyObject *args) {
  (void)args;
  return Generator_close(op, NULL);
}

static PyObject *Generator_get_closed(PyObject *op, void *closure) {
  (void)closure;
  return PyBool_FromLong(IS_CLOSED((GeneratorObject *)op));
}

static PyObject *Generator_get_layout(PyObject *op, void *closure) {
  (void)closure;
  return Py_NewRef(((GeneratorObject *)op)->layout);
}

static PyObject *Generator_repr(PyObject *op) {
  GeneratorObject *self = (GeneratorObject *)op;
  PyObject *layout = PyObject_Repr(self->layout);
  if (!layout) return NULL;
  PyObject *r;
  if (IS_CLOSED(self)) {
    r = PyUnicode_FromFormat("<snowflake_c.Generator %U closed>", layout);
  } else {
    PyObject *node = Generator_get_node(op, NULL);
    if (!node) {
      Py_DECREF(layout);
      return NULL;
    }
    r = PyUnicode_FromFormat("<snowflake_c.Generator %U node=%R>", layout,
                             node);
    Py_DECREF(node);
  }
  Py_DECREF(layout);
  return r;
}

static PyObject *Generator_reduce(PyObject *op, PyObject *unused) {
  (void)op;
  (void)unused;
  PyErr_SetString(PyExc_TypeError,
                  "a Generator cannot be pickled: create one in each process "
                  "(node={\"worker\": \"auto\"} with a state_dir gives each "
                  "process its own worker)");
  return NULL;
}

/* Called in a forked child: the threads that were inside a call in the
 * parent do not exist here. */
static PyObject *Generator_after_fork_child(PyObject *op, PyObject *unused) {
  (void)unused;
  GeneratorObject *self = (GeneratorObject *)op;
#ifdef Py_GIL_DISABLED
  atomic_store(&self->busy, 0);
#else
  self->busy = 0;
#endif
  Py_RETURN_NONE;
}

static PyMethodDef Generator_methods[] = {
    {"next_id", Generator_next_id, METH_NOARGS,
     "next_id($self, /)\n--\n\nThe next ID. Waits for the clock with the GIL "
     "released "
     "when the tick's sequence has run out or the clock stepped back."},
    {"next_ids", Generator_next_ids, METH_O,
     "next_ids($self, n, /)\n--\n\nA list of n consecutive IDs, each tick's "
     "run "
     "reserved at once. On failure the exception's `ids` holds the IDs "
     "already issued."},
    {"fill", Generator_fill, METH_O,
     "fill($self, buffer, /)\n--\n\nFills a writable buffer of 64-bit integers "
     "(array('Q'), numpy.uint64 array, or a bytearray whose length is a "
     "multiple of 8, native byte order) with IDs, creating no Python ints. "
     "Returns the number of IDs written."},
    {"next_id_at", Generator_next_id_at, METH_O,
     "next_id_at($self, now_us, /)\n--\n\nThe deterministic entry: takes the "
     "clock "
     "reading (Unix microseconds), never sleeps. Returns (id, 0), or "
     "(None, wait_us) when the caller must wait and call again."},
    {"next_ids_at", Generator_next_ids_at, METH_VARARGS,
     "next_ids_at($self, now_us, n, /)\n--\n\nThe deterministic batch entry: "
     "returns "
     "(ids, wait_us), wait_us being 0 when all n IDs were issued. On failure "
     "the exception's `ids` holds the IDs issued before it."},
    {"now_us", Generator_now_us, METH_NOARGS,
     "now_us($self, /)\n--\n\nThe generator's clock (Unix microseconds from "
     "its time "
     "source)."},
    {"stats", Generator_stats, METH_NOARGS,
     "stats($self, /)\n--\n\nCounters and settings: IDs issued, waits, "
     "borrowed "
     "ticks, rollbacks, clock bumps, the strategy in force, the node "
     "values with where each came from, and the guard: \"held: <lock "
     "file>\", \"off\" or \"unavailable: <why>\"."},
    {"close", Generator_close, METH_NOARGS,
     "close($self, /)\n--\n\nWrites the state file (with a state_dir), "
     "releases the "
     "node value. Further calls raise InvalidArgument. Idempotent."},
    {"__enter__", Generator_enter, METH_NOARGS, NULL},
    {"__exit__", Generator_exit, METH_VARARGS, NULL},
    {"__reduce__", Generator_reduce, METH_NOARGS, NULL},
    {"_after_fork_child", Generator_after_fork_child, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Generator_getset[] = {
    {"layout", Generator_get_layout, NULL, "The generator's Layout.", NULL},
    {"node", Generator_get_node, NULL,
     "The node values in force, by field name (after auto/host/env).", NULL},
    {"closed", Generator_get_closed, NULL, "Whether close() was called.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef Generator_members[] = {
    {"__weaklistoffset__", Py_T_PYSSIZET, offsetof(GeneratorObject, weakrefs),
     Py_READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot Generator_slots[] = {
    {Py_tp_doc,
     "Generator(*, preset=None, layout=None, epoch=None, node=None, "
     "rollback=None, max_wait=None, max_drift=None, random_start=False, "
     "state_dir=None, time_source=None, state_reserve=None, guard=True, "
     "guard_dir=None)\n--\n\n"
     "Issues unique, time-ordered IDs for one layout and one node value. "
     "Thread-safe and lock-free. Durations are in milliseconds (int) or "
     "timedelta. The host-wide guard (on unless guard=False) refuses a "
     "second live generator with the same layout and node values with "
     "WorkerUnavailable; guard_dir is the folder of its lock files."},
    {Py_tp_new, Generator_new},
    {Py_tp_dealloc, Generator_dealloc},
    {Py_tp_repr, Generator_repr},
    {Py_tp_methods, Generator_methods},
    {Py_tp_getset, Generator_getset},
    {Py_tp_members, Generator_members},
    {0, NULL},
};

static PyType_Spec Generator_spec = {
    .name = "snowflake_c.Generator",
    .basicsize = sizeof(GeneratorObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = Generator_slots,
};

/* ===================================================================== */
/* Module functions                                                      */
/* ===================================================================== */

/* An encoding by name: "dec", "hex", "base32", "base36", "base58" or
 * "base62". */
static int encoding_arg(module_state *st, PyObject *obj, sfc_encoding *out) {
  if (!PyUnicode_Check(obj)) {
    type_error(obj, "encoding must be a str such as \"base62\"");
    return -1;
  }
  Py_ssize_t len = 0;
  const char *name = text_arg(st, obj, "encoding", &len);
  if (!name) return -1;
  sfc_error err;
  if (sfc_encoding_by_name(name, (size_t)len, out, &err) != SFC_OK) {
    raise_error(st, &err);
    return -1;
  }
  return 0;
}

/* An ID written in `encoding` (a str, fixed width or shortest). */
static int encoded_id_arg(module_state *st, PyObject *obj,
                          sfc_encoding encoding, uint64_t *out) {
  if (!PyUnicode_Check(obj)) {
    type_error(obj, "an encoded ID must be a str");
    return -1;
  }
  Py_ssize_t len = 0;
  const char *text = PyUnicode_AsUTF8AndSize(obj, &len);
  if (!text) return -1;
  sfc_error err;
  if (sfc_id_parse_as(text, (size_t)len, encoding, out, &err) != SFC_OK) {
    raise_error(st, &err);
    return -1;
  }
  return 0;
}

static PyObject *mod_decode(PyObject *module, PyObject *args,
                            PyObject *kwargs) {
  static char *kwlist[] = {"id", "layout", "preset", "epoch", "encoding", NULL};
  PyObject *id_obj, *layout_arg = Py_None, *preset = Py_None, *epoch = Py_None,
                    *encoding_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O$OOO:decode", kwlist,
                                   &id_obj, &layout_arg, &preset, &epoch,
                                   &encoding_obj))
    return NULL;
  module_state *st = get_state(module);
  uint64_t id;
  if (encoding_obj == Py_None) {
    if (id_arg(st, id_obj, &id) < 0) return NULL;
  } else {
    sfc_encoding encoding;
    if (encoding_arg(st, encoding_obj, &encoding) < 0 ||
        encoded_id_arg(st, id_obj, encoding, &id) < 0)
      return NULL;
  }
  PyObject *layout = resolve_layout(st, layout_arg, preset, epoch);
  if (!layout) return NULL;
  sfc_parts parts;
  sfc_error err;
  if (sfc_decode(&((LayoutObject *)layout)->layout, id, &parts, &err) !=
      SFC_OK) {
    Py_DECREF(layout);
    return raise_error(st, &err);
  }
  PartsObject *self = PyObject_New(PartsObject, st->parts_type);
  if (!self) {
    Py_DECREF(layout);
    return NULL;
  }
  self->parts = parts;
  self->layout = (LayoutObject *)layout;
  return (PyObject *)self;
}

static PyObject *mod_encode(PyObject *module, PyObject *args,
                            PyObject *kwargs) {
  static char *kwlist[] = {"time", "fields", "layout", "preset", "epoch", NULL};
  PyObject *time_obj, *fields = Py_None, *layout_arg = Py_None,
                      *preset = Py_None, *epoch = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O$OOO:encode", kwlist,
                                   &time_obj, &fields, &layout_arg, &preset,
                                   &epoch))
    return NULL;
  module_state *st = get_state(module);
  sfc_parts parts;
  memset(&parts, 0, sizeof parts);
  if (is_datetime(st, time_obj)) {
    if (datetime_to_units(st, time_obj, st->one_us, "time", &parts.time_us) < 0)
      return NULL;
  } else {
    int64_t ms;
    if (time_ms_arg(st, time_obj, "time", &ms) < 0) return NULL;
    if (ms > INT64_MAX / 1000 || ms < INT64_MIN / 1000)
      return raise_kind(st, SFC_INVALID_ARGUMENT,
                        "time %lld ms is out of range", (long long)ms);
    parts.time_us = ms * 1000;
  }
  PyObject *layout = resolve_layout(st, layout_arg, preset, epoch);
  if (!layout) return NULL;
  const sfc_layout *lay = &((LayoutObject *)layout)->layout;
  PyObject *result = NULL, *items = NULL;
  sfc_node_value named[SFC_MAX_FIELDS];
  size_t count = 0;
  if (fields != Py_None) {
    if (!PyMapping_Check(fields)) {
      type_error(fields, "fields must be a mapping of field name to int");
      goto done;
    }
    items = PyMapping_Items(fields);
    if (!items) goto done;
    if (PyList_Size(items) > SFC_MAX_FIELDS) {
      raise_kind(st, SFC_INVALID_ARGUMENT, "a layout has at most %d fields",
                 SFC_MAX_FIELDS);
      goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_Size(items); i++) {
      PyObject *key, *v;
      const char *name;
      if (item_pair(PyList_GetItem(items, i), &key, &v) < 0 ||
          str_arg(st, key, "a field name", &name) < 0)
        goto done;
      if (!PyLong_Check(v) || PyBool_Check(v)) {
        type_error(v, "field %s must be an int", name);
        goto done;
      }
      int overflow;
      long long value = PyLong_AsLongLongAndOverflow(v, &overflow);
      if (value == -1 && PyErr_Occurred()) goto done;
      if (overflow) {
        raise_kind(st, SFC_INVALID_ARGUMENT, "field %s=%R does not fit", name,
                   v);
        goto done;
      }
      named[count].name = name;
      named[count].value = value;
      count++;
    }
  }
  /* Names, ranges and missing fields are checked by the core. */
  uint64_t id;
  sfc_error err;
  if (sfc_encode_named(lay, parts.time_us, named, count, &id, &err) != SFC_OK)
    raise_error(st, &err);
  else
    result = PyLong_FromUnsignedLongLong(id);
done:
  Py_XDECREF(items);
  Py_DECREF(layout);
  return result;
}

static PyObject *mod_range(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"start", "end", "layout", "preset", "epoch", NULL};
  PyObject *t0_obj, *t1_obj, *layout_arg = Py_None, *preset = Py_None,
                             *epoch = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$OOO:range", kwlist,
                                   &t0_obj, &t1_obj, &layout_arg, &preset,
                                   &epoch))
    return NULL;
  module_state *st = get_state(module);
  int64_t t0, t1;
  if (time_ms_arg(st, t0_obj, "start", &t0) < 0 ||
      time_ms_arg(st, t1_obj, "end", &t1) < 0)
    return NULL;
  PyObject *layout = resolve_layout(st, layout_arg, preset, epoch);
  if (!layout) return NULL;
  uint64_t lo, hi;
  sfc_error err;
  sfc_status status =
      sfc_range(&((LayoutObject *)layout)->layout, t0, t1, &lo, &hi, &err);
  Py_DECREF(layout);
  if (status != SFC_OK) return raise_error(st, &err);
  return Py_BuildValue("(KK)", (unsigned long long)lo, (unsigned long long)hi);
}

static PyObject *mod_format_id(PyObject *module, PyObject *args,
                               PyObject *kwargs) {
  static char *kwlist[] = {"id", "encoding", "pad", NULL};
  PyObject *id_obj, *encoding_obj;
  int pad = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$p:format_id", kwlist,
                                   &id_obj, &encoding_obj, &pad))
    return NULL;
  module_state *st = get_state(module);
  uint64_t id;
  sfc_encoding encoding;
  if (id_arg(st, id_obj, &id) < 0 ||
      encoding_arg(st, encoding_obj, &encoding) < 0)
    return NULL;
  char buf[SFC_ENCODED_MAX];
  size_t n = sfc_id_format(id, encoding, pad ? 0 : SFC_FORMAT_SHORTEST, buf,
                           sizeof buf);
  if (n == 0 || n >= sizeof buf)
    return raise_kind(st, SFC_INVALID_ARGUMENT, "ID %llu cannot be written",
                      (unsigned long long)id);
  return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)n);
}

static PyObject *mod_parse_id(PyObject *module, PyObject *args) {
  PyObject *text_obj, *encoding_obj;
  if (!PyArg_ParseTuple(args, "OO:parse_id", &text_obj, &encoding_obj))
    return NULL;
  module_state *st = get_state(module);
  sfc_encoding encoding;
  uint64_t id;
  if (encoding_arg(st, encoding_obj, &encoding) < 0 ||
      encoded_id_arg(st, text_obj, encoding, &id) < 0)
    return NULL;
  return PyLong_FromUnsignedLongLong(id);
}

static PyObject *mod_presets(PyObject *module, PyObject *unused) {
  (void)unused;
  module_state *st = get_state(module);
  PyObject *dict = PyDict_New();
  if (!dict) return NULL;
  size_t count = sfc_preset_count();
  for (size_t i = 0; i < count; i++) {
    const char *name, *spec;
    int64_t epoch_ms;
    sfc_layout layout;
    sfc_error err;
    if (sfc_preset_at(i, &name, &spec, &epoch_ms) != SFC_OK) continue;
    if (sfc_layout_preset(name, &layout, &err) != SFC_OK) {
      Py_DECREF(dict);
      return raise_error(st, &err);
    }
    PyObject *key = PyUnicode_FromString(name);
    PyObject *value = key ? layout_wrap(st, &layout, key) : NULL;
    int r = value ? PyDict_SetItem(dict, key, value) : -1;
    Py_XDECREF(key);
    Py_XDECREF(value);
    if (r < 0) {
      Py_DECREF(dict);
      return NULL;
    }
  }
  return dict;
}

static PyObject *mod_format_time(PyObject *module, PyObject *arg) {
  int64_t ms;
  if (time_ms_arg(get_state(module), arg, "time", &ms) < 0) return NULL;
  char iso[SFC_ISO_MAX];
  size_t n = sfc_format_iso(ms, iso, sizeof iso);
  if (n >= sizeof iso) n = sizeof iso - 1;
  return PyUnicode_FromStringAndSize(iso, (Py_ssize_t)n);
}

static PyObject *mod_after_fork_child(PyObject *module, PyObject *unused) {
  (void)unused;
  module_state *st = get_state(module);
  if (!st->generators) Py_RETURN_NONE;
  PyObject *alive = PySequence_List(st->generators);
  if (!alive) return NULL;
  for (Py_ssize_t i = 0; i < PyList_Size(alive); i++)
    Generator_after_fork_child(PyList_GetItem(alive, i), NULL);
  Py_DECREF(alive);
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"decode", (PyCFunction)(void (*)(void))mod_decode,
     METH_VARARGS | METH_KEYWORDS,
     "decode(id, layout=None, *, preset=None, epoch=None, encoding=None)\n--"
     "\n\nSplits an ID (int or decimal str, or a str in `encoding` such as "
     "\"base62\") into its time and fields. The layout is a Layout, a spec "
     "str with epoch=, or preset= (default: \"default\")."},
    {"format_id", (PyCFunction)(void (*)(void))mod_format_id,
     METH_VARARGS | METH_KEYWORDS,
     "format_id(id, encoding, *, pad=True)\n--\n\n"
     "The ID as text in an encoding: \"dec\", \"hex\", \"base32\" "
     "(Crockford), \"base36\", \"base58\" (Bitcoin) or \"base62\". Fixed "
     "width by default, so that the strings sort as the IDs do; pad=False "
     "gives the shortest form."},
    {"parse_id", mod_parse_id, METH_VARARGS,
     "parse_id(text, encoding, /)\n--\n\n"
     "The ID that text in an encoding stands for, fixed width or shortest "
     "(hex, base32 and base36 in any case)."},
    {"encode", (PyCFunction)(void (*)(void))mod_encode,
     METH_VARARGS | METH_KEYWORDS,
     "encode(time, fields=None, *, layout=None, preset=None, epoch=None)\n--"
     "\n\nThe ID of a time (Unix ms or aware datetime, rounded down to the "
     "tick) and the value of every other field (a mapping). The inverse of "
     "decode()."},
    {"range", (PyCFunction)(void (*)(void))mod_range,
     METH_VARARGS | METH_KEYWORDS,
     "range(start, end, *, layout=None, preset=None, epoch=None)\n--\n\n"
     "The smallest and largest IDs whose time lies in [start, end) (Unix ms "
     "or aware datetimes; end excluded, so that consecutive windows never "
     "share an ID), for range scans."},
    {"presets", mod_presets, METH_NOARGS,
     "presets()\n--\n\nThe presets' layouts, by name."},
    {"format_time", mod_format_time, METH_O,
     "format_time(time, /)\n--\n\nUnix ms (or an aware datetime) as the "
     "ISO-8601 UTC string of the canonical JSON: "
     "'2016-04-30T11:18:25.796Z'."},
    {"_after_fork_child", mod_after_fork_child, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* ===================================================================== */
/* Module init                                                           */
/* ===================================================================== */

static const struct {
  sfc_status status;
  int value_error;
  const char *doc;
} error_kinds[] = {
    {SFC_INVALID_LAYOUT, 1,
     "A layout spec, preset name or epoch is invalid (also a ValueError)."},
    {SFC_INVALID_ARGUMENT, 1,
     "An argument is out of range or inconsistent (also a ValueError)."},
    {SFC_CLOCK_MOVED_BACKWARDS, 0,
     "The clock stepped back and the rollback strategy refused to issue."},
    {SFC_TIME_EXHAUSTED, 0, "The layout's time field has run out."},
    {SFC_GENERATOR_FORKED, 0,
     "A generator with a static node value was used in a forked child."},
    {SFC_WORKER_UNAVAILABLE, 0,
     "The node value is held by another live process, or the pool is full."},
    {SFC_STATE_ERROR, 0, "The state directory or a state file cannot be used."},
};

static int set_status_attrs(PyObject *cls, PyObject *value) {
  return PyObject_SetAttrString(cls, "status", value) < 0 ||
                 PyObject_SetAttrString(cls, "code", value) < 0
             ? -1
             : 0;
}

static int add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **out) {
  *out = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, NULL);
  if (!*out) return -1;
  return PyModule_AddType(module, *out);
}

static PyStructSequence_Field field_fields[] = {
    {"name", "Field name."},
    {"kind", "\"time\", \"seq\", \"clock\" or \"node\"."},
    {"bits", "Width in bits."},
    {"shift", "Position of the lowest bit in the ID."},
    {"max", "Largest value: 2**bits - 1."},
    {NULL, NULL},
};

static PyStructSequence_Desc field_desc = {
    "snowflake_c.Field",
    "One field of a layout: (name, kind, bits, shift, max).",
    field_fields,
    5,
};

static int module_exec(PyObject *module) {
  module_state *st = get_state(module);
  if (sfc_version_number() != SFC_VERSION_NUMBER) {
    PyErr_Format(PyExc_ImportError,
                 "snowflake_c was built against core %s but loaded core %s",
                 SFC_VERSION_STRING, sfc_version_string());
    return -1;
  }

  PyObject *datetime = PyImport_ImportModule("datetime");
  if (!datetime) return -1;
  st->datetime_type = PyObject_GetAttrString(datetime, "datetime");
  st->timedelta_type = PyObject_GetAttrString(datetime, "timedelta");
  PyObject *tz = PyObject_GetAttrString(datetime, "timezone");
  PyObject *utc = tz ? PyObject_GetAttrString(tz, "utc") : NULL;
  Py_XDECREF(tz);
  Py_DECREF(datetime);
  if (!st->datetime_type || !st->timedelta_type || !utc) {
    Py_XDECREF(utc);
    return -1;
  }
  st->unix_epoch = PyObject_CallFunction(st->datetime_type, "iiiiiiiO", 1970, 1,
                                         1, 0, 0, 0, 0, utc);
  Py_DECREF(utc);
  if (!st->unix_epoch) return -1;
  st->one_ms = PyObject_CallFunction(st->timedelta_type, "iiii", 0, 0, 0, 1);
  st->one_us = PyObject_CallFunction(st->timedelta_type, "iii", 0, 0, 1);
  if (!st->one_ms || !st->one_us) return -1;

  PyObject *weakref = PyImport_ImportModule("weakref");
  if (!weakref) return -1;
  st->generators = PyObject_CallMethod(weakref, "WeakSet", NULL);
  Py_DECREF(weakref);
  if (!st->generators) return -1;

  st->error = PyErr_NewExceptionWithDoc(
      "snowflake_c.SnowflakeError",
      "Base of every snowflake_c error. `status` (and `code`) give the error "
      "kind's name, the same in every language.",
      NULL, NULL);
  if (!st->error || set_status_attrs(st->error, Py_None) < 0 ||
      PyModule_AddObjectRef(module, "SnowflakeError", st->error) < 0)
    return -1;
  for (size_t i = 0; i < sizeof error_kinds / sizeof error_kinds[0]; i++) {
    const char *name = sfc_status_name(error_kinds[i].status);
    char qualified[96];
    PyOS_snprintf(qualified, sizeof qualified, "snowflake_c.%s", name);
    PyObject *bases = error_kinds[i].value_error
                          ? PyTuple_Pack(2, st->error, PyExc_ValueError)
                          : PyTuple_Pack(1, st->error);
    if (!bases) return -1;
    PyObject *cls =
        PyErr_NewExceptionWithDoc(qualified, error_kinds[i].doc, bases, NULL);
    Py_DECREF(bases);
    if (!cls) return -1;
    st->errors[error_kinds[i].status] = cls;
    PyObject *status_name = PyUnicode_FromString(name);
    int r = status_name ? set_status_attrs(cls, status_name) : -1;
    Py_XDECREF(status_name);
    if (r < 0 || PyModule_AddObjectRef(module, name, cls) < 0) return -1;
  }

  if (add_type(module, &Layout_spec, &st->layout_type) < 0 ||
      add_type(module, &Parts_spec, &st->parts_type) < 0 ||
      add_type(module, &Generator_spec, &st->generator_type) < 0)
    return -1;
  st->field_type = PyStructSequence_NewType(&field_desc);
  if (!st->field_type ||
      PyModule_AddObjectRef(module, "Field", (PyObject *)st->field_type) < 0)
    return -1;

  if (PyModule_AddStringConstant(module, "__version__", sfc_version_string()) <
          0 ||
      PyModule_AddStringConstant(module, "CORE_VERSION", sfc_version_string()) <
          0)
    return -1;
  return 0;
}

static int module_traverse(PyObject *module, visitproc visit, void *arg) {
  module_state *st = get_state(module);
  Py_VISIT(st->error);
  for (int i = 0; i < SFC_STATUS_COUNT; i++)
    Py_VISIT(st->errors[i]);
  Py_VISIT(st->layout_type);
  Py_VISIT(st->generator_type);
  Py_VISIT(st->parts_type);
  Py_VISIT(st->field_type);
  Py_VISIT(st->datetime_type);
  Py_VISIT(st->timedelta_type);
  Py_VISIT(st->unix_epoch);
  Py_VISIT(st->one_ms);
  Py_VISIT(st->one_us);
  Py_VISIT(st->generators);
  return 0;
}

static int module_clear(PyObject *module) {
  module_state *st = get_state(module);
  Py_CLEAR(st->error);
  for (int i = 0; i < SFC_STATUS_COUNT; i++)
    Py_CLEAR(st->errors[i]);
  Py_CLEAR(st->layout_type);
  Py_CLEAR(st->generator_type);
  Py_CLEAR(st->parts_type);
  Py_CLEAR(st->field_type);
  Py_CLEAR(st->datetime_type);
  Py_CLEAR(st->timedelta_type);
  Py_CLEAR(st->unix_epoch);
  Py_CLEAR(st->one_ms);
  Py_CLEAR(st->one_us);
  Py_CLEAR(st->generators);
  return 0;
}

static void module_free(void *module) {
  module_clear((PyObject *)module);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "snowflake_c._snowflake_c",
    .m_doc = "The CPython glue over the snowflake-c core; import snowflake_c.",
    .m_size = sizeof(module_state),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__snowflake_c(void);

PyMODINIT_FUNC PyInit__snowflake_c(void) {
  return PyModuleDef_Init(&module_def);
}
