/* _snowflake_c — the CPython glue over the snowflake-c core: handles, calls,
 * errors and the GIL. Every decision is the core's; its tables (statuses,
 * options, layout facts, stats) are walked, never copied. The object model
 * is the Python package's, in subclasses of the types here. Multi-phase
 * init, heap types, the limited API of Python 3.10 (one abi3 wheel per
 * platform for every CPython from 3.10). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <structmember.h>

#include "fast_rule.h"
#include "snowflake_c.h"
#include "snowflake_c_host.h"

#define RELEASE_GIL_AT 4096 /* IDs: a batch this large runs without the GIL */

/* The rare paths out of line: the common call then saves no registers. */
#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#elif defined(_MSC_VER)
#define NOINLINE __declspec(noinline)
#define UNLIKELY(x) (x)
#else
#define NOINLINE
#define UNLIKELY(x) (x)
#endif

typedef struct {
  PyObject *error;                    /* SnowflakeError */
  PyObject *errors[SFC_STATUS_COUNT]; /* by status; NULL for Ok and Wait */
  PyTypeObject *layout_type, *parts_type, *generator_type, *lease_type;
  PyObject *timedelta_type;
} module_state;

/* Every object the state holds, for module_traverse and module_clear. */
#define EACH_OBJECT(apply, st)                                                 \
  for (int i_ = 0; i_ < SFC_STATUS_COUNT; i_++)                                \
    apply((st)->errors[i_]);                                                   \
  apply((st)->error);                                                          \
  apply((st)->layout_type);                                                    \
  apply((st)->parts_type);                                                     \
  apply((st)->generator_type);                                                 \
  apply((st)->lease_type);                                                     \
  apply((st)->timedelta_type)

static inline module_state *get_state(PyObject *module) {
  return (module_state *)PyModule_GetState(module);
}

/* ---- Errors -------------------------------------------------------------- */

static PyObject *error_class(module_state *st, sfc_status status) {
  int known = (int)status >= 0 && status < SFC_STATUS_COUNT;
  return known && st->errors[status] ? st->errors[status] : st->error;
}

static void *raise_error(module_state *st, const sfc_error *err) {
  PyErr_SetString(error_class(st, err->status), err->message);
  return NULL;
}

/* For what only Python sees: an int too wide for C, a negative count. */
#define raise_invalid(st, ...)                                                 \
  PyErr_Format((st)->errors[SFC_INVALID_ARGUMENT], __VA_ARGS__)

/* A list of the n IDs as ints. */
static PyObject *list_of(const uint64_t *issued, size_t n) {
  PyObject *ids = PyList_New((Py_ssize_t)n), *id;
  for (size_t i = 0; ids && i < n; i++)
    if (!(id = PyLong_FromUnsignedLongLong(issued[i])) ||
        PyList_SetItem(ids, (Py_ssize_t)i, id) < 0)
      Py_CLEAR(ids);
  return ids;
}

/* Raises `err` with the n IDs issued before the failure as `.ids`. */
static PyObject *raise_with_ids(module_state *st, const sfc_error *err,
                                const uint64_t *issued, size_t n) {
  PyObject *cls = error_class(st, err->status);
  PyObject *ids = list_of(issued, n);
  PyObject *exc = ids ? PyObject_CallFunction(cls, "s", err->message) : NULL;
  if (exc && PyObject_SetAttrString(exc, "ids", ids) == 0)
    PyErr_SetObject(cls, exc);
  Py_XDECREF(exc);
  Py_XDECREF(ids);
  return NULL;
}

/* TypeError "<what> must be <want>, not <the type's __qualname__>". */
static void *type_error(PyObject *obj, const char *what, const char *want) {
  PyObject *name =
      PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__qualname__");
  if (name)
    PyErr_Format(PyExc_TypeError, "%s must be %s, not %U", what, want, name);
  Py_XDECREF(name);
  return NULL;
}

/* A new `cls`, which must be `base` or a Python subclass of it. */
static PyObject *new_of(PyObject *cls, PyTypeObject *base) {
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, base))
    return type_error(cls, "cls", "a subclass of the core's type");
  allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)cls, Py_tp_alloc);
  return alloc((PyTypeObject *)cls, 0);
}

/* ---- Conversions --------------------------------------------------------- */

/* A str as UTF-8; a NUL inside is InvalidArgument (C text would end). */
static const char *text_arg(module_state *st, PyObject *obj, const char *what,
                            Py_ssize_t *len) {
  Py_ssize_t n = 0;
  const char *text = PyUnicode_Check(obj) ? PyUnicode_AsUTF8AndSize(obj, &n)
                                          : type_error(obj, what, "a str");
  sfc_error err;
  if (text && sfc_text_check(what, text, (size_t)n, &err) != SFC_OK)
    text = raise_error(st, &err);
  if (len) *len = n;
  return text;
}

static int int64_arg(module_state *st, PyObject *obj, const char *what,
                     int64_t *out) {
  if (!PyLong_Check(obj) || PyBool_Check(obj))
    return type_error(obj, what, "an int"), -1;
  int overflow = 0;
  *out = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow) raise_invalid(st, "%s %R is out of range", what, obj);
  return overflow || (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* An ID from an int or a decimal str (which the core reads). */
static int id_arg(module_state *st, PyObject *obj, uint64_t *out) {
  sfc_error err;
  Py_ssize_t len = 0;
  if (PyUnicode_Check(obj)) {
    const char *text = PyUnicode_AsUTF8AndSize(obj, &len);
    if (text &&
        sfc_id_parse(text, (size_t)len, SFC_ENCODING_DEC, out, &err) != SFC_OK)
      raise_error(st, &err);
    return PyErr_Occurred() ? -1 : 0;
  }
  if (!PyLong_Check(obj) || PyBool_Check(obj))
    return type_error(obj, "an ID", "an int or a decimal str"), -1;
  *out = PyLong_AsUnsignedLongLong(obj);
  if (!PyErr_Occurred()) return 0;
  PyErr_Clear();
  int over = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj, &over);
  raise_invalid(st, "ID %R %s; IDs are unsigned 64-bit integers", obj,
                over < 0 || (!over && v < 0) ? "is negative"
                                             : "does not fit in 64 bits");
  return -1;
}

/* Part `name` of a timedelta, read as an attribute: a subclass's
 * __reduce__ (or anything else it overrides) may give any object, so each
 * part must be an int in the range a timedelta keeps. */
static int timedelta_part(module_state *st, PyObject *obj, const char *what,
                          const char *name, long long min, long long max,
                          long long *out) {
  PyObject *part = PyObject_GetAttrString(obj, name);
  if (!part) return -1;
  int over = 0;
  int is_int = PyLong_Check(part) && !PyBool_Check(part);
  *out = is_int ? PyLong_AsLongLongAndOverflow(part, &over) : 0;
  if (is_int && !over && !PyErr_Occurred() && *out >= min && *out <= max)
    return Py_DECREF(part), 0;
  PyErr_Clear();
  raise_invalid(st,
                "%s: the timedelta's %s must be an int from %lld to %lld, "
                "not %R",
                what, name, min, max, part);
  Py_DECREF(part);
  return -1;
}

/* What a call that reads or waits gives the primitives: the key whose value
 * is read (a message names it) at `depth` in the maps, the last type_name,
 * the generator that waits. */
typedef struct {
  module_state *st;
  const char *key;
  int depth;
  PyObject *type_name;
  PyObject *gen;
} py_ctx;

/* The trio is a str in Python (an epoch is made one before). */
static int is_trio(const char *key) {
  return !strcmp(key, "preset") || !strcmp(key, "layout") ||
         !strcmp(key, "epoch");
}

/* The kit's `in`: None, bool, int, float, timedelta (DURATION), str (UTF-8)
 * or bytes as the core's value, a dict a MAP where the kit reads one (the
 * arguments, and their "node"). Text points into `obj`, which the caller
 * holds. On failure the Python exception is pending. */
static int py_in(void *ctx, sfk_obj obj, sfc_value *v, sfc_error *err) {
  py_ctx *c = (py_ctx *)ctx;
  module_state *st = c->st;
  const char *what = c->key;
  int over = 0, top = c->depth == 1;
  char *text = NULL; /* the object's own NUL-terminated buffer */
  Py_ssize_t len = 0;
  *v = (sfc_value){.type = SFC_TYPE_NONE};
  err->status = SFC_INVALID_ARGUMENT; /* read only on failure */
  if (PyDict_Check(obj) && (!c->depth || (top && !strcmp(what, "node")))) {
    v->type = SFC_TYPE_MAP;
  } else if (top && is_trio(what) && obj != Py_None && !PyUnicode_Check(obj)) {
    type_error(obj, what, "a str");
    return -1;
  } else if (PyBool_Check(obj)) {
    *v = (sfc_value){.type = SFC_TYPE_BOOL, .i = obj == Py_True};
  } else if (PyLong_Check(obj)) {
    *v = (sfc_value){.type = SFC_TYPE_INT,
                     .i = PyLong_AsLongLongAndOverflow(obj, &over)};
    if (over > 0)
      *v = (sfc_value){.type = SFC_TYPE_UINT,
                       .u = PyLong_AsUnsignedLongLong(obj)};
    if (over < 0 || PyErr_Occurred()) {
      PyErr_Clear();
      raise_invalid(st, "%s %R does not fit in 64 bits", what, obj);
      return -1;
    }
  } else if (PyFloat_Check(obj)) {
    *v = (sfc_value){.type = SFC_TYPE_DOUBLE, .d = PyFloat_AsDouble(obj)};
  } else if (PyObject_TypeCheck(obj, (PyTypeObject *)st->timedelta_type)) {
    long long days, sec, us; /* normalized: seconds 0..86399 */
    if (timedelta_part(st, obj, what, "days", -999999999, 999999999, &days) ||
        timedelta_part(st, obj, what, "seconds", 0, 86399, &sec) ||
        timedelta_part(st, obj, what, "microseconds", 0, 999999, &us))
      return -1;
    *v = (sfc_value){.type = SFC_TYPE_DURATION,
                     .i = (int64_t)days * 86400 + sec,
                     .nanos = (int64_t)us * 1000};
  } else if (PyBytes_Check(obj) || PyUnicode_Check(obj)) {
    if (PyBytes_Check(obj)
            ? PyBytes_AsStringAndSize(obj, &text, &len) < 0
            : !(text = (char *)PyUnicode_AsUTF8AndSize(obj, &len)))
      return -1;
    *v = (sfc_value){.type = SFC_TYPE_TEXT, .text = text, .len = (size_t)len};
  } else if (obj != Py_None) {
    type_error(obj, what,
               "None, a bool, an int, a float, a timedelta, a str or bytes");
    return -1;
  }
  return 0;
}

/* A core value as a Python object (no text: None). */
static PyObject *from_value(const sfc_value *v) {
  if (v->type == SFC_TYPE_BOOL) return PyBool_FromLong(v->i != 0);
  if (v->type == SFC_TYPE_INT) return PyLong_FromLongLong(v->i);
  if (v->type == SFC_TYPE_UINT) return PyLong_FromUnsignedLongLong(v->u);
  if (v->type == SFC_TYPE_DOUBLE) return PyFloat_FromDouble(v->d);
  if (v->type == SFC_TYPE_TEXT && v->text)
    return PyUnicode_FromStringAndSize(v->text, (Py_ssize_t)v->len);
  Py_RETURN_NONE;
}

/* d[name] = value, stealing value. */
static int set_item(PyObject *d, const char *name, PyObject *value) {
  int r = value ? PyDict_SetItemString(d, name, value) : -1;
  Py_XDECREF(value);
  return r;
}

typedef struct {
  PyObject_HEAD sfc_layout layout;
  module_state *st;
} LayoutObject;

#define LAYOUT(op) (&((LayoutObject *)(op))->layout)

/* ---- The kit's walks (snowflake_c_host.h) --------------------------------
 * Stats, a layout's description, lease stats, warnings and the tables'
 * names are walked by the kit into Python values: new references, taken
 * over by push and put. A generator's arguments are read by the kit, and
 * its waits for the clock looped by it. */

static int py_out(void *Py_UNUSED(ctx), const sfc_value *v, sfk_obj *out) {
  return (*out = from_value(v)) ? 0 : -1;
}

static int py_list(void *Py_UNUSED(ctx), sfk_obj *out) {
  return (*out = PyList_New(0)) ? 0 : -1;
}

static int py_map(void *Py_UNUSED(ctx), sfk_obj *out) {
  return (*out = PyDict_New()) ? 0 : -1;
}

static int py_push(void *Py_UNUSED(ctx), sfk_obj list, sfk_obj v) {
  int r = PyList_Append(list, v);
  Py_DECREF(v);
  return r;
}

static int py_put(void *Py_UNUSED(ctx), sfk_obj map, const char *key,
                  int Py_UNUSED(symbol), sfk_obj v) {
  return set_item(map, key, v);
}

static void py_drop(void *Py_UNUSED(ctx), sfk_obj o) {
  Py_DECREF(o);
}

/* The type's __qualname__, held until the call ends. */
static const char *py_type_name(void *ctx, sfk_obj o) {
  py_ctx *c = (py_ctx *)ctx;
  PyObject *name =
      PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__qualname__");
  const char *text = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
  if (!text) PyErr_Clear();
  Py_XDECREF(c->type_name);
  c->type_name = name;
  return text ? text : "object";
}

/* The pairs of a dict in order, each key a str. The dicts are the
 * package's own, made for the call: nothing else holds or changes them. */
static int py_each(void *ctx, sfk_obj map, const char *what, sfk_visit visit,
                   void *visit_ctx, sfc_error *err) {
  py_ctx *c = (py_ctx *)ctx;
  const char *outer = c->key;
  const char *key_is = strcmp(what, "node") ? "an option name" : "a field name";
  int ok = 1;
  PyObject *key, *value;
  Py_ssize_t pos = 0, len = 0;
  c->depth++;
  while (ok && PyDict_Next(map, &pos, &key, &value))
    ok = (c->key = text_arg(c->st, key, key_is, &len)) &&
         visit(visit_ctx, c->key, (size_t)len, value, err);
  c->depth--;
  c->key = outer;
  return ok;
}

static const sfc_layout *py_layout(void *ctx, sfk_obj o) {
  return PyObject_TypeCheck(o, ((py_ctx *)ctx)->st->layout_type) ? LAYOUT(o)
                                                                 : NULL;
}

static void py_raise(void *ctx, const sfc_error *err) {
  raise_error(((py_ctx *)ctx)->st, err);
}

static int py_wait(void *ctx, int64_t wait_us, sfc_error *err);

/* The words of a type the kit's calls want, by sfk_arg. */
static void py_wrong_type(void *Py_UNUSED(ctx), sfk_obj o, const char *what,
                          int want) {
  static const char *const words[] = {
      [SFK_ARG_ID] = "an int or a decimal str",
      [SFK_ARG_INT] = "an int",
      [SFK_ARG_TEXT] = "a str",
      [SFK_ARG_UUID] = "a str or a uuid.UUID",
      [SFK_ARG_ENCODING] = "a str",
      [SFK_ARG_PAD] = "True, False or None (the encoding's default form)",
      [SFK_ARG_MAP] = "a dict",
      [SFK_ARG_LAYOUT] = "a Layout"};
  type_error(o, what, words[want]);
}

static const sfk_host py_host = {.in = py_in,
                                 .type_name = py_type_name,
                                 .each = py_each,
                                 .layout = py_layout,
                                 .out = py_out,
                                 .list = py_list,
                                 .map = py_map,
                                 .push = py_push,
                                 .put = py_put,
                                 .drop = py_drop,
                                 .wait = py_wait,
                                 .raise = py_raise,
                                 .wrong_type = py_wrong_type};

/* Row `row` of the kit's calls on `n` arguments: each read by py_in (named
 * as the row names it), the result the kit's. */
static PyObject *run(module_state *st, size_t row, PyObject *const *args,
                     size_t n) {
  const sfk_call *call = sfk_call_at(row);
  py_ctx c = {st, NULL, 0, NULL, NULL};
  sfk_host h = py_host;
  sfc_value values[SFK_CALL_ARGS];
  sfk_obj out = NULL;
  sfc_error err;
  int bad = 0;
  h.ctx = &c;
  for (size_t k = 0; !bad && k < n; k++) { /* a Layout: read by py_layout */
    values[k].type = SFK_TYPE_OBJECT;
    bad = call->kind[k] != SFK_ARG_LAYOUT &&
          (c.key = call->what[k], py_in(&c, args[k], &values[k], &err));
  }
  bad = bad || sfk_call_run(&h, row, (sfk_obj *)args, values, n, &out, &err);
  Py_XDECREF(c.type_name);
  if (bad && !PyErr_Occurred()) py_raise(&c, &err);
  return bad ? NULL : (PyObject *)out;
}

/* A call of `nargs` positional arguments, after `self` when it is one. */
static PyObject *run_positional(module_state *st, size_t row, PyObject *self,
                                PyObject *const *args, Py_ssize_t nargs) {
  const sfk_call *call = sfk_call_at(row);
  PyObject *all[SFK_CALL_ARGS];
  size_t n = 0;
  if (self) all[n++] = self;
  if (nargs < 0 || n + (size_t)nargs < call->required ||
      n + (size_t)nargs > call->count)
    return PyErr_Format(PyExc_TypeError, "%s() takes %d arguments (%zd given)",
                        call->name, (int)(call->count - n), nargs);
  for (Py_ssize_t k = 0; k < nargs; k++)
    all[n++] = args[k];
  return run(st, row, all, n);
}

/* A module function, or a Layout method, of a row of the kit's calls. */
#define MODULE_CALL(fn, ROW)                                                   \
  static PyObject *fn(PyObject *m, PyObject *const *a, Py_ssize_t n) {         \
    return run_positional(get_state(m), SFK_CALL_##ROW, NULL, a, n);           \
  }
#define LAYOUT_CALL(fn, ROW)                                                   \
  static PyObject *fn(PyObject *self, PyObject *const *a, Py_ssize_t n) {      \
    return run_positional(((LayoutObject *)self)->st, SFK_CALL_##ROW, self, a, \
                          n);                                                  \
  }

/* A generator's arguments (a dict: "layout" a Layout or a spec, "preset",
 * "epoch", "node" a dict by field or the only value, the options by name)
 * read by the kit into `s`, and the layout they name into `layout` unless
 * NULL (`for_ids`: assuming none): 0, or -1 raised (`s` freed). */
static int setup_read(module_state *st, PyObject *args, sfk_setup *s,
                      sfc_layout *layout, int for_ids) {
  py_ctx c = {st, "the arguments", 0, NULL, NULL};
  sfk_host h = py_host;
  sfc_error err;
  h.ctx = &c;
  sfk_setup_init(s);
  int ok =
      sfk_setup_read(&h, s, NULL, &(sfk_obj){args}, &err) &&
      (!layout || (for_ids ? sfc_layout_resolve_for_ids : sfc_layout_resolve)(
                      s->has_held ? &s->held : NULL, s->preset, s->spec,
                      s->epoch, layout, &err) == SFC_OK);
  Py_XDECREF(c.type_name);
  if (ok) return 0;
  if (!PyErr_Occurred()) py_raise(&c, &err);
  sfk_setup_free(s);
  return -1;
}

/* What the kit made (`failed` 0), read after the call that made it. */
static PyObject *py_made(int failed, const sfk_obj *o) {
  return failed ? NULL : (PyObject *)*o;
}

/* ---- Layout -------------------------------------------------------------- */

/* The spec of CoreName, a type that only this module makes; its objects keep
 * the module state, which their Python subclass has not. */
#define CORE_SPEC(Name)                                                        \
  (&(PyType_Spec){.name = "snowflake_c._snowflake_c.Core" #Name,               \
                  .basicsize = sizeof(Name##Object),                           \
                  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE |          \
                           Py_TPFLAGS_IMMUTABLETYPE |                          \
                           Py_TPFLAGS_DISALLOW_INSTANTIATION,                  \
                  .slots = Name##_slots})

/* layout(cls, args, for_ids=False): a new `cls` (a CoreLayout subclass) of
 * "layout" (a Layout or a spec), "preset" and "epoch" in `args` by the core's
 * rule (sfc_layout_resolve, or for IDs made elsewhere
 * sfc_layout_resolve_for_ids, which assumes none). */
static PyObject *mod_layout(PyObject *module, PyObject *args) {
  module_state *st = get_state(module);
  PyObject *cls, *given;
  int for_ids = 0;
  sfk_setup s;
  sfc_layout layout;
  if (!PyArg_ParseTuple(args, "OO!|p", &cls, &PyDict_Type, &given, &for_ids) ||
      setup_read(st, given, &s, &layout, for_ids) < 0)
    return NULL;
  sfk_setup_free(&s);
  LayoutObject *self = (LayoutObject *)new_of(cls, st->layout_type);
  if (self) self->st = st;
  if (self) self->layout = layout;
  return (PyObject *)self;
}

/* A decoded ID: the core's parts and the Layout that decoded them. */
typedef struct {
  PyObject_HEAD PyObject *layout;
  sfc_parts parts;
} PartsObject;

/* _parts(cls, id): a new `cls` (a CoreParts subclass) holding the ID (an
 * int or a decimal str) decoded; each value is made when it is read. */
static PyObject *Layout_parts(PyObject *op, PyObject *const *args,
                              Py_ssize_t nargs) {
  module_state *st = ((LayoutObject *)op)->st;
  sfc_parts p;
  sfc_error err;
  if (nargs != 2) return PyErr_BadArgument(), NULL;
  if (id_arg(st, args[1], &p.id) < 0) return NULL;
  if (sfc_decode(LAYOUT(op), p.id, &p, &err)) return raise_error(st, &err);
  PartsObject *self = (PartsObject *)new_of(args[0], st->parts_type);
  if (self) self->parts = p;
  if (self) self->layout = Py_NewRef(op);
  return (PyObject *)self;
}

LAYOUT_CALL(Layout_describe, LAYOUT_FACTS)
LAYOUT_CALL(Layout_encode, ENCODE)
LAYOUT_CALL(Layout_range, RANGE)

#define FAST(fn) (PyCFunction)(void (*)(void)) fn, METH_FASTCALL
static PyMethodDef Layout_methods[] = {
    {"_describe", FAST(Layout_describe), NULL},
    {"_parts", FAST(Layout_parts), NULL},
    {"_encode", FAST(Layout_encode), NULL},
    {"_range", FAST(Layout_range), NULL},
    {NULL, NULL, 0, NULL},
};

static void plain_dealloc(PyObject *op) {
  PyTypeObject *tp = Py_TYPE(op);
  freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  tp_free(op);
  Py_DECREF(tp);
}

static PyType_Slot Layout_slots[] = {
    {Py_tp_dealloc, plain_dealloc},
    {Py_tp_methods, Layout_methods},
    {0, NULL},
};

/* _value(i): the value of the layout's field i (time: the tick count). */
static PyObject *Parts_value(PyObject *op, PyObject *index) {
  Py_ssize_t i = PyLong_AsSsize_t(index); /* past the fields: 0 */
  if (i >= 0 && i < SFC_MAX_FIELDS)
    return PyLong_FromUnsignedLongLong(((PartsObject *)op)->parts.values[i]);
  return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_IndexError, "%zd", i);
}

/* to_json(): the canonical JSON line, byte for byte every language's. */
static PyObject *Parts_to_json(PyObject *op, PyObject *Py_UNUSED(unused)) {
  PartsObject *p = (PartsObject *)op;
  char buf[SFC_JSON_MAX];
  size_t n = sfc_parts_json(LAYOUT(p->layout), &p->parts, buf, sizeof buf);
  return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)n);
}

static void Parts_dealloc(PyObject *op) {
  Py_XDECREF(((PartsObject *)op)->layout);
  plain_dealloc(op);
}

/* The public methods' docstrings start with their signature, which
 * inspect.signature() and help() read (and mypy.stubtest checks against the
 * stubs). */
static PyMethodDef Parts_methods[] = {
    {"_value", Parts_value, METH_O, NULL},
    {"to_json", Parts_to_json, METH_NOARGS,
     "to_json($self, /)\n--\n\n"
     "The canonical JSON line, byte for byte the CLI's `decode --json` and "
     "every other binding's: the ID as a decimal string, time_ms, time "
     "(ISO-8601 UTC), then every other field in layout order."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Parts_members[] = {
    {"id", T_ULONGLONG, offsetof(PartsObject, parts.id), READONLY, "The ID."},
    {"time_ms", T_LONGLONG, offsetof(PartsObject, parts.time_ms), READONLY,
     "Unix milliseconds of the ID's tick (rounded down)."},
    {"time_us", T_LONGLONG, offsetof(PartsObject, parts.time_us), READONLY,
     "Unix microseconds of the ID's tick."},
    {"layout", T_OBJECT_EX, offsetof(PartsObject, layout), READONLY,
     "The Layout used to decode."},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot Parts_slots[] = {
    {Py_tp_dealloc, Parts_dealloc},
    {Py_tp_methods, Parts_methods},
    {Py_tp_members, Parts_members},
    {0, NULL},
};

/* ---- Generator ----------------------------------------------------------- */

/* Lifetime: close() may come while a call is between two uses of the core
 * generator — from another thread (while the call has the GIL released for
 * a batch or a wait for the clock; at any time free-threaded), or from
 * Python code that the call itself runs (a signal handler that a wait runs
 * through PyErr_CheckSignals, a finalizer that an allocation's collection
 * runs). So close() only closes (sfc_generator_close: a call racing it
 * issues before it or gets the closed error) and whoever lets go of the
 * core generator last frees it. `holds` counts what may use it: the open
 * generator itself (given up by close()) and every call that may run
 * Python code or meet another thread between its uses of it (with the GIL:
 * the slow paths, so that the common call costs nothing; free-threaded:
 * every call). A call takes its hold before it looks at `closed`, so a
 * hold taken after the last one went sees the generator closed and never
 * reaches `gen`. close() waits for nothing: no call of its own thread can
 * deadlock it. */
#ifdef Py_GIL_DISABLED
#include <stdatomic.h>
#define ATOMIC(type) _Atomic(type)
#define EVERY_CALL_HOLDS 1
#else
#define ATOMIC(type) type
#define EVERY_CALL_HOLDS 0
#endif

typedef struct {
  PyObject_HEAD ATOMIC(sfc_generator *) gen; /* NULL once freed */
  ATOMIC(long) holds;
  ATOMIC(int) closed;
  module_state *st;
  fast_rule rule;  /* next_id()'s common case, while the generator is open */
  PyObject *lease; /* the CoreLease of a leased node value, for stats() */
} GeneratorObject;

/* Frees the core generator (closing it if still open) without the GIL;
 * once, whoever of the last hold and dealloc comes first. */
static void free_gen(GeneratorObject *self) {
#ifdef Py_GIL_DISABLED
  sfc_generator *g = atomic_exchange(&self->gen, NULL);
#else
  sfc_generator *g = self->gen;
  self->gen = NULL;
#endif
  if (g) {
    PyThreadState *ts = PyEval_SaveThread();
    sfc_generator_free(g);
    PyEval_RestoreThread(ts);
  }
}

/* Marks the generator closed; true for the one call that did. */
static int mark_closed(GeneratorObject *self) {
#ifdef Py_GIL_DISABLED
  return atomic_exchange(&self->closed, 1) == 0;
#else
  int was = self->closed;
  self->closed = 1;
  return !was;
#endif
}

static void *raise_closed(GeneratorObject *self) {
  sfc_error err;
  sfc_generator_check(NULL, &err);
  return raise_error(self->st, &err);
}

static void gen_release(GeneratorObject *self) {
  if (--self->holds == 0) free_gen(self);
}

/* A hold on the core generator for a call, or NULL (exception set) when
 * it is closed. */
static sfc_generator *gen_hold(GeneratorObject *self) {
  self->holds++;
  if (!self->closed) return self->gen;
  gen_release(self);
  return raise_closed(self);
}

/* The common call's: a hold only free-threaded. With the GIL, nothing can
 * close the generator until the call runs Python code or lets the GIL go,
 * and before it does either it takes a hold (gen_keep). */
static inline sfc_generator *gen_enter(GeneratorObject *self) {
  if (EVERY_CALL_HOLDS) return gen_hold(self);
  return self->closed ? raise_closed(self) : self->gen;
}

static inline void gen_exit(GeneratorObject *self) {
  if (EVERY_CALL_HOLDS) gen_release(self);
}

/* Turns gen_enter's check into a hold, which gen_release ends. */
static inline void gen_keep(GeneratorObject *self) {
  if (!EVERY_CALL_HOLDS) self->holds++;
}

/* After the GIL or Python code (signal handlers) had its turn: -1, the
 * closed error raised, when close() came meanwhile. The call's hold keeps
 * `gen` valid; this only stops it sooner. */
static int check_open(GeneratorObject *self) {
  return self->closed ? (raise_closed(self), -1) : 0;
}

/* The kit's wait: up to `wait_us` for the clock with the GIL released, at
 * most SFK_MAX_PAUSE_US at a time (signals, Ctrl-C, are checked at least
 * this often), then runs signal handlers; the caller holds the generator.
 * Non-zero with the Python exception set. */
static int py_wait(void *ctx, int64_t wait_us, sfc_error *err) {
  GeneratorObject *self = (GeneratorObject *)((py_ctx *)ctx)->gen;
  PyThreadState *ts = PyEval_SaveThread();
  sfc_pause(wait_us < 0                  ? 0
            : wait_us > SFK_MAX_PAUSE_US ? SFK_MAX_PAUSE_US
                                         : wait_us);
  PyEval_RestoreThread(ts);
  if (PyErr_CheckSignals() == 0 && check_open(self) == 0) return 0;
  err->status = SFC_INVALID_ARGUMENT;
  return -1;
}

static void Generator_dealloc(PyObject *op) {
  free_gen((GeneratorObject *)op); /* no call is left: each holds a ref */
  Py_CLEAR(((GeneratorObject *)op)->lease); /* it let go of this one */
  plain_dealloc(op);
}

/* next_id() past the first attempt: waits for the clock, a closed
 * generator, the core's errors. A wait runs signal handlers, which may
 * close the generator: the call holds it until it is done. */
static NOINLINE PyObject *next_id_rest(GeneratorObject *self,
                                       sfc_generator *gen, sfc_status status,
                                       int64_t wait_us, sfc_error *err) {
  py_ctx c = {.gen = (PyObject *)self};
  sfk_host h = py_host;
  uint64_t id = 0;
  h.ctx = &c;
  if (status != SFC_WAIT) return raise_error(self->st, err);
  gen_keep(self);
  int raised = py_wait(&c, wait_us, err) != 0 ||
               ((status = sfk_next_id(&h, &gen, &id, err)) != SFC_OK &&
                PyErr_Occurred());
  gen_release(self);
  if (raised) return NULL;
  return status == SFC_OK ? PyLong_FromUnsignedLongLong(id)
                          : raise_error(self->st, err);
}

static PyObject *Generator_next_id(PyObject *op, PyObject *Py_UNUSED(unused)) {
  GeneratorObject *self = (GeneratorObject *)op;
  sfc_generator *gen = gen_enter(self);
  if (UNLIKELY(!gen)) return NULL;
  uint64_t id;
  if (fast_rule_next(&self->rule, &id)) {
    gen_exit(self);
    return PyLong_FromUnsignedLongLong(id);
  }
  int64_t wait_us;
  sfc_error err;
  sfc_status status = sfc_next_now(gen, &id, &wait_us, &err);
  if (UNLIKELY(status != SFC_OK))
    return next_id_rest(self, gen, status, wait_us, &err);
  gen_exit(self);
  return PyLong_FromUnsignedLongLong(id);
}

/* Issues n IDs into `ids`: by the generator's clock, waiting as the core
 * says, the core without the GIL for large n (now_us NULL); or at the
 * caller's time *now_us, never waiting (the deterministic entry). *done
 * counts the IDs issued, which are the caller's whatever the outcome.
 * Returns the core's last status (issued: SFC_OK, or SFC_WAIT with *wait_us
 * to wait), or -1 with the Python exception of a signal handler or of a
 * close() meanwhile. The caller holds `gen`. */
static int issue(GeneratorObject *self, sfc_generator *gen,
                 const int64_t *now_us, uint64_t *ids, size_t n, size_t *done,
                 int64_t *wait_us, sfc_error *err) {
  *done = 0;
  *wait_us = 0;
  if (now_us)
    return (int)sfc_next_ids_at(gen, *now_us, ids, n, done, wait_us, err);
  sfc_status status = SFC_OK;
  while (*done < n && (status == SFC_OK || status == SFC_WAIT)) {
    size_t got = 0;
    PyThreadState *ts = n >= RELEASE_GIL_AT ? PyEval_SaveThread() : NULL;
    status = sfc_next_ids_now(gen, ids + *done, n - *done, &got, wait_us, err);
    *done += got;
    if (ts) PyEval_RestoreThread(ts);
    if ((ts && check_open(self) < 0) ||
        (status == SFC_WAIT &&
         py_wait(&(py_ctx){.gen = (PyObject *)self}, *wait_us, err) != 0))
      return -1;
  }
  return (int)status;
}

#define ISSUED(status) ((status) == SFC_OK || (status) == SFC_WAIT)

/* A batch call's count n (given as `obj`): 0 up to what a buffer holds. */
static int count_check(module_state *st, PyObject *obj, int64_t n) {
  if (n >= 0 && n <= PY_SSIZE_T_MAX / 8) return 0;
  raise_invalid(st, "n must be 0 or more, not %R", obj);
  return -1;
}

/* _ids(n, now_us=None): n IDs as native-order bytes, for fill() and
 * next_id_at(), the core without the GIL for large n; with now_us, the
 * deterministic entry: (bytes, how many were issued, wait_us). On failure
 * the exception's `ids` holds the IDs issued before it. */
static PyObject *Generator_ids(PyObject *op, PyObject *args) {
  GeneratorObject *self = (GeneratorObject *)op;
  PyObject *n_obj, *now = Py_None;
  int64_t n, now_us = 0, wait_us = 0;
  if (!PyArg_ParseTuple(args, "O|O", &n_obj, &now) ||
      int64_arg(self->st, n_obj, "n", &n) < 0 ||
      (now != Py_None && int64_arg(self->st, now, "now_us", &now_us) < 0) ||
      count_check(self->st, n_obj, n) < 0)
    return NULL;
  PyObject *bytes = PyBytes_FromStringAndSize(NULL, n * 8);
  sfc_generator *gen = bytes ? gen_hold(self) : NULL;
  if (!gen) return Py_XDECREF(bytes), NULL;
  uint64_t *ids = (uint64_t *)PyBytes_AsString(bytes);
  size_t done = 0;
  sfc_error err;
  int status = issue(self, gen, now == Py_None ? NULL : &now_us, ids, (size_t)n,
                     &done, &wait_us, &err);
  gen_release(self);
  if (status >= 0 && !ISSUED(status)) raise_with_ids(self->st, &err, ids, done);
  if (status < 0 || !ISSUED(status)) Py_CLEAR(bytes);
  if (!bytes || now == Py_None) return bytes;
  return Py_BuildValue("(NnL)", bytes, (Py_ssize_t)done,
                       (long long)(status == SFC_WAIT ? wait_us : 0));
}

/* IDs a list is made of at once: a batch up to this many is issued into the
 * stack, a larger one into memory of its own. */
#define IDS_ON_STACK 1024

/* next_ids(n) and next_ids_at(now_us, n): the IDs issued as a list, made
 * straight from the core's buffer; with now_us, (list, wait_us). */
static PyObject *ids_list(GeneratorObject *self, int64_t n,
                          const int64_t *now_us) {
  uint64_t stack[IDS_ON_STACK];
  uint64_t *ids = n <= IDS_ON_STACK
                      ? stack
                      : (uint64_t *)PyMem_Malloc((size_t)n * sizeof *ids);
  if (!ids) return PyErr_NoMemory();
  PyObject *list = NULL;
  sfc_generator *gen = gen_hold(self);
  if (gen) {
    size_t done = 0;
    int64_t wait_us = 0;
    sfc_error err;
    int status =
        issue(self, gen, now_us, ids, (size_t)n, &done, &wait_us, &err);
    gen_release(self);
    if (status >= 0 && !ISSUED(status))
      raise_with_ids(self->st, &err, ids, done);
    else if (status >= 0)
      list = list_of(ids, done);
    if (list && now_us)
      list = Py_BuildValue("(NL)", list,
                           (long long)(status == SFC_WAIT ? wait_us : 0));
  }
  if (ids != stack) PyMem_Free(ids);
  return list;
}

static PyObject *Generator_next_ids(PyObject *op, PyObject *n_obj) {
  GeneratorObject *self = (GeneratorObject *)op;
  int64_t n;
  if (int64_arg(self->st, n_obj, "n", &n) < 0 ||
      count_check(self->st, n_obj, n) < 0)
    return NULL;
  return ids_list(self, n, NULL);
}

static PyObject *Generator_next_ids_at(PyObject *op, PyObject *args) {
  GeneratorObject *self = (GeneratorObject *)op;
  PyObject *now, *n_obj;
  int64_t now_us, n;
  if (!PyArg_ParseTuple(args, "OO", &now, &n_obj) ||
      int64_arg(self->st, n_obj, "n", &n) < 0 ||
      int64_arg(self->st, now, "now_us", &now_us) < 0 ||
      count_check(self->st, n_obj, n) < 0)
    return NULL;
  return ids_list(self, n, &now_us);
}

static PyObject *Generator_now_us(PyObject *op, PyObject *Py_UNUSED(unused)) {
  sfc_generator *gen = gen_enter((GeneratorObject *)op);
  if (!gen) return NULL;
  int64_t now = sfc_generator_now_us(gen);
  gen_exit((GeneratorObject *)op);
  return PyLong_FromLongLong(now);
}

static PyObject *Lease_stats(PyObject *op, PyObject *unused);

/* The stats by name in the core's order; a MAP is a dict by node field;
 * a leased node value's lease as "lease" (CoreLease.stats()).
 * Held throughout: the stats' texts are the generator's, and making the
 * dicts may run a collection whose finalizers close it. */
static PyObject *Generator_stats(PyObject *op, PyObject *Py_UNUSED(unused)) {
  sfc_generator *gen = gen_hold((GeneratorObject *)op);
  if (!gen) return NULL;
  sfc_stats s;
  sfk_obj made;
  sfc_generator_stats(gen, &s);
  PyObject *d = py_made(sfk_stats_out(&py_host, &s, &made), &made);
  PyObject *lease = ((GeneratorObject *)op)->lease;
  if (d && lease && set_item(d, "lease", Lease_stats(lease, NULL)) < 0)
    Py_CLEAR(d);
  gen_release((GeneratorObject *)op);
  return d;
}

/* Closes the core generator, which gives the node value back at once;
 * the calls in flight end on their own (see Lifetime), and the last hold
 * let go frees it. The open generator's hold keeps `gen` valid here. */
static PyObject *Generator_close(PyObject *op, PyObject *Py_UNUSED(unused)) {
  GeneratorObject *self = (GeneratorObject *)op;
  if (mark_closed(self)) {
    PyThreadState *ts = PyEval_SaveThread();
    sfc_generator_close(self->gen);
    PyEval_RestoreThread(ts);
    gen_release(self);
  }
  Py_RETURN_NONE;
}

/* _warnings(): what the core says the user should be told, as
 * [[kind, text]] (the kind's category is <kind>Warning). */
static PyObject *Generator_warnings(PyObject *op, PyObject *Py_UNUSED(unused)) {
  sfc_generator *gen = gen_hold((GeneratorObject *)op);
  sfk_obj made;
  if (!gen) return NULL;
  PyObject *r = py_made(sfk_warnings_out(&py_host, gen, &made), &made);
  gen_release((GeneratorObject *)op);
  return r;
}

/* Closed by close(), or by the core: a newer generator of this process
 * took its value over. */
static PyObject *Generator_get_closed(PyObject *op, void *Py_UNUSED(closure)) {
  GeneratorObject *self = (GeneratorObject *)op;
  if (self->closed) Py_RETURN_TRUE;
  sfc_generator *gen = gen_hold(self);
  if (!gen) return PyErr_Clear(), Py_NewRef(Py_True);
  int closed = sfc_generator_closed(gen);
  gen_release(self);
  return PyBool_FromLong(closed);
}

static PyMethodDef Generator_methods[] = {
    {"next_id", Generator_next_id, METH_NOARGS,
     "next_id($self, /)\n--\n\n"
     "The next ID. Waits for the clock with the GIL released when the "
     "tick's sequence has run out or the clock stepped back."},
    {"next_ids", Generator_next_ids, METH_O,
     "next_ids($self, n, /)\n--\n\n"
     "A list of n consecutive IDs, each tick's run reserved at once. On "
     "failure the exception's `ids` holds the IDs already issued."},
    {"next_ids_at", Generator_next_ids_at, METH_VARARGS,
     "next_ids_at($self, now_us, n, /)\n--\n\n"
     "The deterministic batch entry: (ids, wait_us), wait_us 0 when all n "
     "were issued. On failure the exception's `ids` holds the IDs issued."},
    {"_ids", Generator_ids, METH_VARARGS, NULL},
    {"now_us", Generator_now_us, METH_NOARGS,
     "now_us($self, /)\n--\n\n"
     "The generator's clock: Unix microseconds from its time source."},
    {"stats", Generator_stats, METH_NOARGS,
     "stats($self, /)\n--\n\n"
     "The counters and settings, keyed as the core's table names them; "
     "with a leased node value, \"lease\": its state, value, expiry and "
     "horizon (Unix ms), renewals, failures and last failure."},
    {"close", Generator_close, METH_NOARGS,
     "close($self, /)\n--\n\n"
     "Writes the state file (with a state_dir) and gives the node value "
     "back, without waiting: a call in progress (on another thread, or one "
     "that a signal handler calling close() interrupted) either issued "
     "before it or raises InvalidArgument, as every later call does. "
     "Idempotent."},
    {"_warnings", Generator_warnings, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Generator_getset[] = {
    {"closed", Generator_get_closed, NULL,
     "Whether the generator is closed: by close(), or by a newer generator "
     "of this process that took its node value over.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot Generator_slots[] = {
    {Py_tp_dealloc, Generator_dealloc},
    {Py_tp_methods, Generator_methods},
    {Py_tp_getset, Generator_getset},
    {0, NULL},
};

/* ---- Lease --------------------------------------------------------------- */

/* A node value leased from PostgreSQL: the core's protocol (sfc_lease_*),
 * whose statements the package's host (snowflake_c/_lease.py) runs through
 * psycopg. The lease keeps the one statement in flight (a lease is used
 * from one thread at a time: the host's), and, once it made the generator,
 * a reference and a hold on it until release(): the core's lease reads the
 * generator's clock and word until then, even after close(). */
typedef struct {
  PyObject_HEAD sfc_lease *lease;
  GeneratorObject *gen; /* the generator made on the value, until release() */
  module_state *st;
  sfc_lease_query q; /* the statement due(), release() handed out last */
  int has_query;
} LeaseObject;

/* The names of the steps, for the host's messages. */
static const char *const lease_steps[] = {"idle", "acquire", "renew",
                                          "release"};

/* (step, sql, params) of the statement in q: the parameters as a tuple of
 * str (bound as $1, $2, …; each statement casts them). */
static PyObject *query_tuple(const sfc_lease_query *q) {
  PyObject *params = PyTuple_New(q->nparams);
  for (int i = 0; params && i < q->nparams; i++) {
    PyObject *p = PyUnicode_FromString(q->params[i]);
    if (!p || PyTuple_SetItem(params, i, p) < 0) Py_CLEAR(params);
  }
  return params ? Py_BuildValue("(ssN)", lease_steps[q->step], q->sql, params)
                : NULL;
}

static void Lease_dealloc(PyObject *op) {
  LeaseObject *self = (LeaseObject *)op;
  sfc_lease_free(self->lease); /* first: it no longer reads the generator */
  if (self->gen) gen_release(self->gen);
  Py_CLEAR(self->gen);
  PyTypeObject *tp = Py_TYPE(op);
  PyObject_Free(op);
  Py_DECREF(tp);
}

/* due(): the statement due now as (step, sql, params), or how many
 * microseconds to sleep before asking again (the core caps it). */
static PyObject *Lease_due(PyObject *op, PyObject *Py_UNUSED(unused)) {
  LeaseObject *self = (LeaseObject *)op;
  int64_t wait_us = 0;
  self->has_query = 0;
  if (sfc_lease_due(self->lease, &self->q, &wait_us) == SFC_LEASE_IDLE)
    return PyLong_FromLongLong(wait_us);
  self->has_query = 1;
  return query_tuple(&self->q);
}

static int check_query(LeaseObject *self) {
  if (self->has_query) return 0;
  raise_invalid(self->st, "the lease has no statement in flight: take one "
                          "from due() or release() first");
  return -1;
}

/* done(row): the row the statement returned (a tuple of str or None, each
 * column as PostgreSQL's text), or None for no row. Raises what the core
 * makes of it: WorkerUnavailable (every value held), LeaseExpired (the
 * value taken by another holder), StateError. */
static PyObject *Lease_done(PyObject *op, PyObject *row_obj) {
  LeaseObject *self = (LeaseObject *)op;
  const char *row[SFC_LEASE_PARAMS] = {NULL};
  sfc_error err;
  if (check_query(self) < 0) return NULL;
  const int has_row = row_obj != Py_None;
  if (has_row && !PyTuple_Check(row_obj))
    return type_error(row_obj, "a row", "a tuple or None");
  Py_ssize_t ncols = has_row ? PyTuple_Size(row_obj) : 0;
  if (ncols > SFC_LEASE_PARAMS) ncols = SFC_LEASE_PARAMS;
  for (Py_ssize_t i = 0; i < ncols; i++) {
    PyObject *col = PyTuple_GetItem(row_obj, i);
    if (!col || (col != Py_None &&
                 !(row[i] = text_arg(self->st, col, "a column", NULL))))
      return NULL;
  }
  self->has_query = 0;
  if (sfc_lease_done(self->lease, &self->q, has_row ? row : NULL, (int)ncols,
                     &err) != SFC_OK)
    return raise_error(self->st, &err);
  Py_RETURN_NONE;
}

/* failed(why): the statement could not be run (the driver's message); the
 * core retries it with backoff. */
static PyObject *Lease_failed(PyObject *op, PyObject *why_obj) {
  LeaseObject *self = (LeaseObject *)op;
  const char *why = text_arg(self->st, why_obj, "why", NULL);
  if (!why || check_query(self) < 0) return NULL;
  self->has_query = 0;
  sfc_lease_failed(self->lease, &self->q, why);
  Py_RETURN_NONE;
}

/* A CoreLease of the node value `opts` lease; NULL with the error raised. */
static PyObject *new_lease(module_state *st, const sfc_layout *layout,
                           const sfc_options *opts) {
  LeaseObject *self = PyObject_New(LeaseObject, st->lease_type);
  sfc_error err;
  if (!self) return NULL;
  self->st = st;
  self->gen = NULL;
  self->has_query = 0;
  self->lease = NULL;
  if (sfc_lease_new(layout, opts, &self->lease, &err) == SFC_OK)
    return (PyObject *)self;
  Py_DECREF(self);
  return raise_error(st, &err);
}

/* A new `cls` (a CoreGenerator subclass) of `args` (cls, the dict
 * setup_read reads), on the value `lease` acquired when given. Without one,
 * arguments that lease the node value (a node field "lease", explicitly or
 * by its environment variable) give a CoreLease, whose generator() this is
 * once the value is acquired. */
static PyObject *new_generator(module_state *st, PyObject *args,
                               sfc_lease *lease) {
  PyObject *cls, *given, *made = NULL;
  sfk_setup s;
  sfc_layout layout;
  sfc_generator *gen = NULL;
  sfc_error err;
  if (!PyArg_ParseTuple(args, "OO!", &cls, &PyDict_Type, &given) ||
      setup_read(st, given, &s, lease ? NULL : &layout, 0) < 0)
    return NULL;
  if (!lease && sfc_lease_wanted(&layout, &s.opts)) {
    made = new_lease(st, &layout, &s.opts);
  } else if ((made = new_of(cls, st->generator_type)) != NULL) {
    GeneratorObject *self = (GeneratorObject *)made;
    self->st = st;
    PyThreadState *ts = PyEval_SaveThread();
    sfc_status status =
        lease ? sfc_lease_generator_new(lease, &s.opts, &gen, &err)
              : sfc_generator_new(&layout, &s.opts, &gen, &err);
    PyEval_RestoreThread(ts);
    self->gen = gen;
    self->holds = 1; /* the open generator's own, which close() gives up */
    if (status == SFC_OK) {
      fast_rule_take(&self->rule, gen);
    } else {
      Py_CLEAR(made);
      raise_error(st, &err);
    }
  }
  sfk_setup_free(&s);
  return made;
}

static PyObject *mod_generator(PyObject *module, PyObject *args) {
  return new_generator(get_state(module), args, NULL);
}

/* generator(cls, args): a new `cls` (a CoreGenerator subclass) on the
 * value acquired, starting after the previous holder's horizon. */
static PyObject *Lease_generator(PyObject *op, PyObject *args) {
  LeaseObject *self = (LeaseObject *)op;
  PyObject *r = new_generator(self->st, args, self->lease);
  if (r) {
    ((GeneratorObject *)r)->holds++; /* the lease's, until release() */
    self->gen = (GeneratorObject *)Py_NewRef(r);
    ((GeneratorObject *)r)->lease = Py_NewRef(op); /* a cycle until release() */
  }
  return r;
}

/* acquired(): True once a value is held, False while the acquire may go
 * on; past the core's time, WorkerUnavailable saying why. */
static PyObject *Lease_acquired(PyObject *op, PyObject *Py_UNUSED(unused)) {
  LeaseObject *self = (LeaseObject *)op;
  sfc_error err;
  sfc_status status = sfc_lease_acquired(self->lease, &err);
  if (status != SFC_OK && status != SFC_WAIT)
    return raise_error(self->st, &err);
  return PyBool_FromLong(status == SFC_OK);
}

static PyObject *Lease_valid(PyObject *op, PyObject *Py_UNUSED(unused)) {
  return PyBool_FromLong(sfc_lease_valid(((LeaseObject *)op)->lease));
}

/* release(): the statement that gives the value back, as due() gives one
 * (its generator closed first: the row keeps its exact last tick), or None
 * when nothing is held. The lease lets go of its generator. */
static PyObject *Lease_release(PyObject *op, PyObject *Py_UNUSED(unused)) {
  LeaseObject *self = (LeaseObject *)op;
  self->has_query = sfc_lease_release(self->lease, &self->q);
  if (self->gen) {
    gen_release(self->gen);
    Py_CLEAR(self->gen);
  }
  if (!self->has_query) Py_RETURN_NONE;
  return query_tuple(&self->q);
}

/* stats(): the lease's state, node field and value, expiry and horizon
 * (Unix ms), renewals, failures and the last failure's message, and the
 * lease's duration; the keys are the CLI's `gen --stats --json`. */
static PyObject *Lease_stats(PyObject *op, PyObject *unused) {
  (void)unused;
  sfc_lease_stats s;
  sfk_obj made;
  sfc_lease_stats_get(((LeaseObject *)op)->lease, &s);
  return py_made(sfk_lease_stats_out(&py_host, &s, &made), &made);
}

static PyMethodDef Lease_methods[] = {
    {"due", Lease_due, METH_NOARGS, NULL},
    {"done", Lease_done, METH_O, NULL},
    {"failed", Lease_failed, METH_O, NULL},
    {"acquired", Lease_acquired, METH_NOARGS, NULL},
    {"generator", Lease_generator, METH_VARARGS, NULL},
    {"valid", Lease_valid, METH_NOARGS, NULL},
    {"release", Lease_release, METH_NOARGS, NULL},
    {"stats", Lease_stats, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot Lease_slots[] = {
    {Py_tp_dealloc, Lease_dealloc},
    {Py_tp_methods, Lease_methods},
    {0, NULL},
};

/* ---- Module functions ---------------------------------------------------- */

/* format_id and parse_id are public as they are, with their docstrings in
 * module_methods; the others are documented where the package wraps them. */

/* format_id(id, encoding, *, pad=None), keywords and all. */
static PyObject *mod_format_id(PyObject *module, PyObject *args,
                               PyObject *kwargs) {
  static char *kwlist[] = {"id", "encoding", "pad", NULL};
  PyObject *given[3] = {NULL, NULL, Py_None};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$O:format_id", kwlist,
                                   &given[0], &given[1], &given[2]))
    return NULL;
  return run(get_state(module), SFK_CALL_FORMAT_ID, given, 3);
}

MODULE_CALL(mod_parse_id, PARSE_ID)
MODULE_CALL(mod_uuid7, UUID7)
MODULE_CALL(mod_format_time, FORMAT_TIME)
MODULE_CALL(mod_parse_time, PARSE_TIME)
MODULE_CALL(mod_lease_table_sql, LEASE_TABLE_SQL)
MODULE_CALL(mod_preset_names, PRESET_NAMES)
MODULE_CALL(mod_option_names, OPTION_NAMES)

/* _adopt(cls, keep=()): its base's methods as its own, which CPython's fast
 * path for method calls needs (it takes the exact type's), but for the
 * names in `keep`, which cls overrides. */
static PyObject *mod_adopt(PyObject *Py_UNUSED(module), PyObject *args) {
  PyObject *cls, *keep = NULL;
  if (!PyArg_ParseTuple(args, "O|O!", &cls, &PyTuple_Type, &keep)) return NULL;
  if (!PyType_Check(cls)) return type_error(cls, "cls", "a class");
  PyTypeObject *base = PyType_GetSlot((PyTypeObject *)cls, Py_tp_base);
  for (PyMethodDef *m = PyType_GetSlot(base, Py_tp_methods); m && m->ml_name;
       m++) {
    PyObject *name = PyUnicode_FromString(m->ml_name);
    int kept = name && keep ? PySequence_Contains(keep, name) : 0;
    Py_XDECREF(name);
    if (kept < 0 || !name) return NULL;
    if (kept) continue;
    PyObject *d = PyDescr_NewMethod((PyTypeObject *)cls, m);
    int r = d ? PyObject_SetAttrString(cls, m->ml_name, d) : -1;
    Py_XDECREF(d);
    if (r < 0) return NULL;
  }
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"layout", mod_layout, METH_VARARGS, NULL},
    {"generator", mod_generator, METH_VARARGS, NULL},
    {"lease_table_sql", FAST(mod_lease_table_sql),
     "lease_table_sql($module, /)\n--\n\n"
     "The SQL that creates the table of leased node values "
     "(snowflake_c_leases) if it is missing: for a migration, or run once "
     "by a role that may create tables."},
    {"format_id", (PyCFunction)(void (*)(void))mod_format_id,
     METH_VARARGS | METH_KEYWORDS,
     "format_id($module, /, id, encoding, *, pad=None)\n--\n\n"
     "The ID (an int or a decimal str) as text in an encoding: \"dec\", "
     "\"hex\", \"base32\" (Crockford), \"base36\", \"base58\" (Bitcoin) or "
     "\"base62\". By default dec is the plain number (as JSON prints it) "
     "and the others are fixed width, so that the strings sort as the IDs "
     "do; pad=True gives the fixed width in any encoding (dec's 20 digits), "
     "pad=False the shortest form."},
    {"parse_id", FAST(mod_parse_id),
     "parse_id($module, text, encoding, /)\n--\n\n"
     "The ID that text in an encoding stands for, fixed width or shortest "
     "(hex, base32 and base36 in any case). Anything else is "
     "InvalidArgument, naming the character and its position."},
    {"_uuid7", FAST(mod_uuid7), NULL},
    {"format_time", FAST(mod_format_time), NULL},
    {"parse_time", FAST(mod_parse_time), NULL},
    {"preset_names", FAST(mod_preset_names), NULL},
    {"option_names", FAST(mod_option_names), NULL},
    {"_adopt", mod_adopt, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* ---- Module init --------------------------------------------------------- */

/* One class per error status of the core's table under SnowflakeError, in
 * ERRORS in status order. Python's own kinds join as bases: bad input is
 * also a ValueError, a failed allocation a MemoryError. */
static int add_errors(PyObject *module, module_state *st) {
  st->error = PyErr_NewExceptionWithDoc(
      "snowflake_c.SnowflakeError",
      "Base of every snowflake_c error; `status` (and `code`) give the error "
      "kind's name, the same in every language.",
      NULL, NULL);
  int r = !st->error || PyObject_SetAttrString(st->error, "status", Py_None) ||
          PyObject_SetAttrString(st->error, "code", Py_None) ||
          PyModule_AddObjectRef(module, "SnowflakeError", st->error);
  const sfc_status_info *info;
  for (size_t i = 0; !r && (info = sfc_status_at(i)); i++) {
    if (!info->is_error || info->status >= SFC_STATUS_COUNT) continue;
    sfc_status s = info->status;
    PyObject *extra = s == SFC_INVALID_LAYOUT || s == SFC_INVALID_ARGUMENT
                          ? PyExc_ValueError
                      : s == SFC_OUT_OF_MEMORY ? PyExc_MemoryError
                                               : NULL;
    char qualified[96];
    PyOS_snprintf(qualified, sizeof qualified, "snowflake_c.%s", info->name);
    PyObject *bases = PyTuple_Pack(extra ? 2 : 1, st->error, extra);
    PyObject *attrs =
        Py_BuildValue("{ssss}", "status", info->name, "code", info->name);
    PyObject *cls = st->errors[s] =
        bases && attrs
            ? PyErr_NewExceptionWithDoc(qualified, info->message, bases, attrs)
            : NULL;
    r = !cls || PyModule_AddObjectRef(module, info->name, cls);
    Py_XDECREF(bases);
    Py_XDECREF(attrs);
  }
  return r ? -1 : 0;
}

/* One warning category per kind of the core's table (UnguardedWarning,
 * LayoutEndingWarning), each a UserWarning, for what the core says a
 * generator's user should be told (sfc_generator_warning_at). */
static int add_warnings(PyObject *module) {
  const char *kind, *doc;
  for (size_t i = 0; (kind = sfc_warning_kind_at(i, &doc)); i++) {
    char name[64], qualified[96], text[SFC_MESSAGE_MAX];
    snprintf(name, sizeof name, "%sWarning", kind);
    snprintf(qualified, sizeof qualified, "snowflake_c.%s", name);
    snprintf(text, sizeof text, "%c%s.", toupper((unsigned char)doc[0]),
             doc + 1);
    PyObject *category =
        PyErr_NewExceptionWithDoc(qualified, text, PyExc_UserWarning, NULL);
    int bad = !category || PyModule_AddObjectRef(module, name, category) < 0;
    Py_XDECREF(category);
    if (bad) return -1;
  }
  return 0;
}

static int add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **out) {
  *out = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, NULL);
  return *out ? PyModule_AddType(module, *out) : -1;
}

static int module_exec(PyObject *module) {
  module_state *st = get_state(module);
  if (sfc_version_number() != SFC_VERSION_NUMBER)
    return PyErr_Format(PyExc_ImportError,
                        "snowflake_c: built against core %s, loaded core %s",
                        SFC_VERSION_STRING, sfc_version_string()),
           -1;
  PyObject *dt = PyImport_ImportModule("datetime");
  st->timedelta_type = dt ? PyObject_GetAttrString(dt, "timedelta") : NULL;
  Py_XDECREF(dt);
  if (!st->timedelta_type || add_errors(module, st) < 0 ||
      add_warnings(module) < 0 ||
      add_type(module, CORE_SPEC(Layout), &st->layout_type) < 0 ||
      add_type(module, CORE_SPEC(Parts), &st->parts_type) < 0 ||
      add_type(module, CORE_SPEC(Generator), &st->generator_type) < 0 ||
      add_type(module, CORE_SPEC(Lease), &st->lease_type) < 0)
    return -1;
  return PyModule_AddStringConstant(module, "CORE_VERSION",
                                    sfc_version_string());
}

static int module_traverse(PyObject *module, visitproc visit, void *arg) {
  module_state *st = get_state(module);
  EACH_OBJECT(Py_VISIT, st);
  return 0;
}

static int module_clear(PyObject *module) {
  module_state *st = get_state(module);
  EACH_OBJECT(Py_CLEAR, st);
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
