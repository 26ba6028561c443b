/* The binding kit's host interface: the walks every language binding would
 * otherwise write again (stats, a layout's description, lease stats,
 * warnings, the tables' names, a generator's arguments read from a map,
 * each warning told once, the SFC_WAIT loop), written once over a handful
 * of primitives that each host defines in an sfk_host: make a value of its
 * language, read one, walk a map, wait, warn.
 *
 * A host value is opaque to the kit (sfk_obj): a PyObject *, a jobject, a
 * napi_value, a Ruby VALUE, a PHP zval *. The kit never raises: a
 * primitive that fails returns non-zero (an error of the core in `err`, or
 * the host's own exception pending, as the host knows), and the kit's call
 * returns non-zero in turn, dropping what it made. The host raises. */
#ifndef SNOWFLAKE_C_HOST_H
#define SNOWFLAKE_C_HOST_H

#include <stdint.h>

#include "snowflake_c_kit.h"

typedef void *sfk_obj;

/* A host value that is none of sfc_value's scalars, nor a map or a list
 * (an object of the language): named by the host, never seen by the core. */
#define SFK_TYPE_OBJECT ((sfc_type)100)

/* Called for each pair of a map; 0 when it failed (`err` set). */
typedef int (*sfk_visit)(void *ctx, const char *key, size_t len, sfk_obj value,
                         sfc_error *err);

/* The primitives. Makers and adders return 0, or non-zero when the host
 * failed; `push` and `put` take `v` over even then. */
typedef struct sfk_host {
  void *ctx; /* handed to every primitive */
  /* In: NONE, BOOL, INT, UINT (integers up to 2^64 - 1), DOUBLE (and larger
   * integers), DURATION, TEXT (pointing into the value, NUL-terminated at
   * len), MAP (by name), LIST, or SFK_TYPE_OBJECT. */
  int (*in)(void *ctx, sfk_obj o, sfc_value *out, sfc_error *err);
  /* The language's name of the value's type ("Integer", "array"). */
  const char *(*type_name)(void *ctx, sfk_obj o);
  /* Calls `visit` for each pair of `map` in order; 0 when something failed
   * (InvalidArgument, naming `what`, when `map` is not a map by name). */
  int (*each)(void *ctx, sfk_obj map, const char *what, sfk_visit visit,
              void *visit_ctx, sfc_error *err);
  /* The layout a Layout object of the host holds, or NULL. */
  const sfc_layout *(*layout)(void *ctx, sfk_obj o);
  /* Out: a scalar (NONE, BOOL, INT, UINT, DOUBLE, TEXT), a list, a map. */
  int (*out)(void *ctx, const sfc_value *v, sfk_obj *out);
  int (*list)(void *ctx, sfk_obj *out);
  int (*map)(void *ctx, sfk_obj *out);
  int (*push)(void *ctx, sfk_obj list, sfk_obj v);
  /* `symbol`: a name of the library (a Ruby Symbol), else data (a field's
   * name). */
  int (*put)(void *ctx, sfk_obj map, const char *key, int symbol, sfk_obj v);
  /* Lets go of a value the kit made and gives no one (NULL: nothing to do,
   * a collector takes it). */
  void (*drop)(void *ctx, sfk_obj o);
  /* Waits about `wait_us` letting other threads run; non-zero when the
   * host was interrupted (an exception to raise). */
  int (*wait)(void *ctx, int64_t wait_us, sfc_error *err);
  /* Tells the user `text`, of a kind of sfc_warning_kind_at, in the
   * language's idiom; non-zero when the host raised instead. */
  int (*warn)(void *ctx, const char *kind, const char *text, sfc_error *err);
  /* Raises the exception of `err` (its status's class, its message). */
  void (*raise)(void *ctx, const sfc_error *err);
  /* Raises the language's type error: `what` must be `want` (an sfk_arg),
   * not `o`'s type. NULL: the kit's InvalidArgument says so. */
  void (*wrong_type)(void *ctx, sfk_obj o, const char *what, int want);
} sfk_host;

/* Fills `err` (status, formatted message); returns `status`. */
sfc_status sfk_fail(sfc_error *err, sfc_status status, const char *format, ...);

/* ---- Values out (a new host value in *out; 0, or non-zero) ------------- */

/* The stats by name in the core's order, a MAP a map by node field. */
int sfk_stats_out(const sfk_host *h, const sfc_stats *stats, sfk_obj *out);
/* The layout's facts by name, "fields" a list of the field facts. */
int sfk_layout_out(const sfk_host *h, const sfc_layout *layout, sfk_obj *out);
int sfk_field_out(const sfk_host *h, const sfc_field *field, sfk_obj *out);
/* A lease's stats by name in the core's order. */
int sfk_lease_stats_out(const sfk_host *h, const sfc_lease_stats *stats,
                        sfk_obj *out);
/* What the core says of the generator: a list of [kind, text]. */
int sfk_warnings_out(const sfk_host *h, const sfc_generator *gen, sfk_obj *out);
/* The core's small tables, a list of rows in its order, each a map by
 * column: the statuses (status, name, message, is_error), the options
 * (name, type, default, min, max, choices (a list, or none), doc), the
 * presets (name, spec, epoch_ms). */
int sfk_statuses_out(const sfk_host *h, sfk_obj *out);
int sfk_options_out(const sfk_host *h, sfk_obj *out);
int sfk_presets_out(const sfk_host *h, sfk_obj *out);
/* The presets' names, the options' names: lists in the core's order. */
int sfk_preset_names_out(const sfk_host *h, sfk_obj *out);
int sfk_option_names_out(const sfk_host *h, sfk_obj *out);
/* A list of `n` IDs (UINT). */
int sfk_ids_out(const sfk_host *h, const uint64_t *ids, size_t n, sfk_obj *out);

/* ---- Values in ---------------------------------------------------------- */

/* Node or field values by name, with every text they point to copied:
 * nothing points into the host's heap, whose collector may move or free
 * it. Zeroed to start, freed by sfk_named_free. */
typedef struct sfk_named {
  sfc_node_value *value;
  size_t count, cap;
  char **kept;
  size_t kept_count, kept_cap;
} sfk_named;

void sfk_named_free(sfk_named *n);
/* A copy of `len` bytes of `text`, NUL-terminated, freed with `n`. */
const char *sfk_keep(sfk_named *n, const char *text, size_t len,
                     sfc_error *err);

/* Appends `v` (its name kept by the caller); 0 out of memory. */
int sfk_named_add(sfk_named *n, const sfc_node_value *v, sfc_error *err);

/* Field values for sfc_encode_named from a host map: an integer, or its
 * decimal text. 0 when one is refused. */
int sfk_fields_read(const sfk_host *h, sfk_obj map, sfk_named *fields,
                    sfc_error *err);

/* What a generator is made from: the preset/layout/epoch trio (text, or
 * NULL when not given) or a Layout object, the options, the node values. */
typedef struct sfk_setup {
  sfc_options opts;
  sfk_named node; /* also keeps every text below */
  const char *preset, *spec, *epoch;
  sfc_layout held; /* a Layout object, when has_held */
  int has_held;
} sfk_setup;

void sfk_setup_init(sfk_setup *s);
void sfk_setup_free(sfk_setup *s);
/* Reads a generator's arguments: (options), or (a preset's name or a Layout
 * object, options), either NULL when not given. The options map holds the
 * options of the core's table by name, `node` (a value, or a map by field)
 * and the trio. 0 when one is refused (an unknown name as the core names
 * it, whatever its value). */
int sfk_setup_read(const sfk_host *h, sfk_setup *s, const sfk_obj *first,
                   const sfk_obj *opts, sfc_error *err);
/* The generator of sfk_setup_read's arguments (sfc_layout_resolve,
 * sfc_generator_new), its warnings told (sfk_tell): SFC_OK, or an error
 * with no generator. */
sfc_status sfk_generator_new(const sfk_host *h, const sfk_obj *first,
                             const sfk_obj *opts, sfc_generator **out,
                             sfc_error *err);

/* ---- Warnings, each told once per process ------------------------------ */

/* 1 when `text` is new (now marked), 0 when it was told before. Out of
 * memory it says 1: told again rather than never. */
int sfk_told_mark(const char *text);
/* Unmarks `text`: a warning the host raised was not given. */
void sfk_told_forget(const char *text);
/* Tells what the core says of a new generator (sfc_generator_warning_at)
 * through h->warn, each text once: 0, or non-zero when the host raised. */
int sfk_tell(const sfk_host *h, const sfc_generator *gen, sfc_error *err);

/* ---- Waiting for the clock --------------------------------------------- */

/* The longest wait between two calls: a close() by another thread or a
 * signal handler ends a waiting call within it. */
#define SFK_MAX_PAUSE_US 20000
/* Upper bound of one batch: 2^24 IDs (128 MiB). */
#define SFK_BATCH_MAX ((size_t)1 << 24)

/* Room for a batch of `n` IDs (free()); NULL with `err` set. */
uint64_t *sfk_ids_alloc(size_t n, sfc_error *err);
/* The next ID, waiting through h->wait. `*gen` is read anew after each
 * wait (another thread may close it meanwhile). */
sfc_status sfk_next_id(const sfk_host *h, sfc_generator *const *gen,
                       uint64_t *id, sfc_error *err);
/* n consecutive IDs into `ids`; `*filled` those issued, also on failure. */
sfc_status sfk_next_ids(const sfk_host *h, sfc_generator *const *gen,
                        uint64_t *ids, size_t n, size_t *filled,
                        sfc_error *err);

/* ---- Calls -------------------------------------------------------------
 * The functions of the core a host offers as they stand, one row each: a
 * host offers every row through one trampoline, which reads each argument
 * with `in` (named by the row's `what` in its messages) and hands the values
 * to sfk_call_run; the kit checks each by its kind, with the same messages
 * in every language, runs the call and makes its result. */

/* An argument's kind. */
typedef enum sfk_arg {
  SFK_ARG_ID,       /* an integer of 0 to 2^64 - 1, or its decimal text */
  SFK_ARG_INT,      /* a signed 64-bit integer */
  SFK_ARG_TEXT,     /* text without a NUL byte */
  SFK_ARG_UUID,     /* a UUID's text as it is (the core names a NUL inside) */
  SFK_ARG_ENCODING, /* an encoding's name */
  SFK_ARG_PAD,      /* true, false or none (the encoding's default form) */
  SFK_ARG_MAP,      /* a map by name */
  SFK_ARG_LAYOUT    /* a Layout object of the host (`layout`) */
} sfk_arg;

/* The rows, in order; each one's result:
 *   FORMAT_ID(id, encoding, pad = none)  text
 *   PARSE_ID(text, encoding)             the ID
 *   UUID7(text)                          [text, unix_ms, rand_a, rand_b, JSON]
 *   FORMAT_TIME(unix_ms)                 ISO-8601 text
 *   PARSE_TIME(text)                     Unix ms of ms or ISO-8601 text
 *   LEASE_TABLE_SQL()                    text
 *   PRESET_NAMES(), OPTION_NAMES()       lists of text, in the core's order
 *   STATUSES(), OPTIONS(), PRESETS()     the tables, as sfk_statuses_out...
 *   LAYOUT_FACTS(layout)                 as sfk_layout_out
 *   ENCODE(layout, time_us, fields)      the ID (fields as sfk_fields_read)
 *   RANGE(layout, start_ms, end_ms)      [the smallest ID, the largest]
 *   PARTS_JSON(layout, id)               the decoded ID's canonical JSON
 *   PARTS_TIME(layout, id)               the decoded ID's ISO-8601 time
 *   ENCODING_NUMBER(name)                the encoding's number */
enum {
  SFK_CALL_FORMAT_ID,
  SFK_CALL_PARSE_ID,
  SFK_CALL_UUID7,
  SFK_CALL_FORMAT_TIME,
  SFK_CALL_PARSE_TIME,
  SFK_CALL_LEASE_TABLE_SQL,
  SFK_CALL_PRESET_NAMES,
  SFK_CALL_OPTION_NAMES,
  SFK_CALL_STATUSES,
  SFK_CALL_OPTIONS,
  SFK_CALL_PRESETS,
  SFK_CALL_LAYOUT_FACTS,
  SFK_CALL_ENCODE,
  SFK_CALL_RANGE,
  SFK_CALL_PARTS_JSON,
  SFK_CALL_PARTS_TIME,
  SFK_CALL_ENCODING_NUMBER,
  SFK_CALL_COUNT
};

#define SFK_CALL_ARGS 3
typedef struct sfk_call {
  const char *name;
  unsigned char count, required; /* the first `required` must be given */
  sfk_arg kind[SFK_CALL_ARGS];
  const char *what[SFK_CALL_ARGS]; /* each one's name in messages */
} sfk_call;

/* Row i, or NULL past the last. */
const sfk_call *sfk_call_at(size_t i);
/* Runs row i on the `n` arguments the host read (`values[k]` read from
 * `objs[k]` by `in`; n from the row's `required` to its `count`): 0 with
 * its result in *out, or non-zero (`err` set, or the host's exception
 * pending). */
int sfk_call_run(const sfk_host *h, size_t i, const sfk_obj *objs,
                 const sfc_value *values, size_t n, sfk_obj *out,
                 sfc_error *err);

#endif
