/*
 * snowflake_c.h — 64-bit, time-ordered unique IDs (the Snowflake family).
 *
 * This header is the whole public surface of the library and its manual.
 *
 *   Layouts    describe how an ID is packed: `time:41@1ms,worker:10,seq:12`
 *              plus an epoch. Parse one from a spec or take a preset.
 *   Generator  issues IDs for one layout and one node value. Lock-free: one
 *              atomic 64-bit state word updated by compare-and-swap.
 *   Decode     turns any ID back into its time and fields, encodes the
 *              reverse, and gives the ID range of a time interval.
 *
 * Conventions
 *   - Every name starts with `sfc_` (types, functions) or `SFC_` (macros).
 *   - Functions that can fail return an `sfc_status` and write their results
 *     to out-parameters. When they fail they leave the outputs untouched and,
 *     if `err` is not NULL, fill it with the status and a message that says
 *     what was wrong and what to do. No errno, no printing, no thread-local
 *     "last error".
 *   - Status numbers are fixed forever; names and messages are static strings.
 *   - Times are Unix time: `_ms` milliseconds, `_us` microseconds, UTC.
 *   - Thread safety is stated per function. Layouts are plain values: share
 *     them freely once built.
 *
 * Changes before 1.0 (the API is 0.x: it may still change, and says so here)
 *   - New: sfc_generator_close (closes while calls may still run; the memory
 *     stays until sfc_generator_free) and sfc_generator_fast_rule (the fast
 *     path's rule as data, for bindings that issue the common case
 *     themselves).
 *   - The guard claims a node value host-wide per ID space and node bits, for
 *     every generator (SFC_OPTION_GUARD). Gone: `guard_dir` and
 *     SFC_OPTION_GUARD_DIR, and the stats' guard "unavailable: …" (a claim
 *     that cannot be taken fails creation). New: sfc_generator_warning.
 *   - One way per task. The three ID parsers are one, sfc_id_parse(text,
 *     len, encoding, …) (it was sfc_id_parse_as; the decimal-only
 *     sfc_id_parse and sfc_id_parse_n are gone, and decimal text longer than
 *     20 characters is refused). Gone: sfc_duration_ms and
 *     sfc_duration_ms_from_double (sfc_options_set takes every duration
 *     type), sfc_rollback_parse, sfc_time_source_parse (sfc_options_set takes
 *     the names), sfc_rollback_name and sfc_time_source_name (the tables
 *     carry the names). New: sfc_rollback_at, the table of strategies,
 *     and SFC_ROLLBACK_COUNT.
 *   - A layout refuses a field named `id` or `time_ms`: its decoded JSON
 *     would repeat that key.
 *   - New: sfc_encoding_at (the string forms as data); the time source
 *     SFC_TIME_COUNTER; sfc_generator_new_shared and
 *     sfc_generator_shared_size (a generator in a host's shared memory);
 *     sfc_generator_may_block.
 *   - sfc_options and sfc_stats are opaque storage of a fixed size (an
 *     option or a stat added later is a row of its table, the ABI stays):
 *     options are set by name or id (sfc_options_set, sfc_options_set_id,
 *     sfc_options_set_nodes) and read back with sfc_options_get; stats are
 *     read through their table or by id (sfc_stat, sfc_stats_uint,
 *     sfc_stats_int, sfc_stats_text). Gone: their fields and SFC_UNSET.
 *   - The same generator made again in one process takes the value over
 *     and closes the older one. New: sfc_generator_closed.
 *
 * Example
 *
 *   sfc_layout layout;
 *   sfc_error err;
 *   sfc_generator *gen;
 *   sfc_node_value node[] = {{"datacenter", 1, SFC_SOURCE_EXPLICIT},
 *                            {"worker", 3, SFC_SOURCE_EXPLICIT}};
 *   sfc_options opts;
 *   sfc_options_init(&opts);
 *   sfc_options_set_nodes(&opts, node, 2);
 *   if (sfc_layout_preset("twitter", &layout, &err) != SFC_OK ||
 *       sfc_generator_new(&layout, &opts, &gen, &err) != SFC_OK) {
 *     fprintf(stderr, "%s: %s\n", sfc_status_name(err.status), err.message);
 *     return 1;
 *   }
 *   uint64_t id;
 *   if (sfc_next(gen, &id, &err) == SFC_OK) printf("%" PRIu64 "\n", id);
 *   sfc_generator_free(gen);
 */
#ifndef SNOWFLAKE_C_H
#define SNOWFLAKE_C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The core's DLL is built with SFC_EXPORTS: on Windows it then exports
 * exactly the API (with MSVC nothing is exported otherwise); users call
 * through the import library with plain declarations, and the static
 * archive exports nothing from the modules it is linked into. */
#if defined(_WIN32) && defined(SFC_EXPORTS)
#define SFC_API __declspec(dllexport)
#elif defined(_WIN32)
#define SFC_API
#elif defined(__GNUC__)
#define SFC_API __attribute__((visibility("default")))
#else
#define SFC_API
#endif

/* ===================================================================== */
/* Version                                                               */
/* ===================================================================== */

#define SFC_VERSION_MAJOR 0
#define SFC_VERSION_MINOR 1
#define SFC_VERSION_PATCH 0
#define SFC_VERSION_STRING "0.1.0"
#define SFC_VERSION_NUMBER                                                     \
  (SFC_VERSION_MAJOR * 10000 + SFC_VERSION_MINOR * 100 + SFC_VERSION_PATCH)

/* The version of the library linked at run time, to compare with
 * SFC_VERSION_NUMBER (the header a binding was compiled against). */
SFC_API unsigned sfc_version_number(void);
SFC_API const char *sfc_version_string(void);

/* ===================================================================== */
/* Status                                                                */
/* ===================================================================== */

/* Fixed numbers: never renumbered, never reused. */
typedef enum sfc_status {
  SFC_OK = 0,
  SFC_INVALID_LAYOUT = 1,        /* InvalidLayout */
  SFC_INVALID_ARGUMENT = 2,      /* InvalidArgument */
  SFC_CLOCK_MOVED_BACKWARDS = 3, /* ClockMovedBackwards */
  SFC_TIME_EXHAUSTED = 4,        /* TimeExhausted */
  SFC_GENERATOR_FORKED = 5,      /* GeneratorForked */
  SFC_WORKER_UNAVAILABLE = 6,    /* WorkerUnavailable */
  SFC_STATE_ERROR = 7,           /* StateError */
  SFC_WAIT = 8, /* not an error: the deterministic entries ask the caller to
                   wait `*wait_us` and call again */
  SFC_OUT_OF_MEMORY = 9, /* OutOfMemory: an allocation failed */
  SFC_LEASE_EXPIRED = 10 /* LeaseExpired: a leased node value may have
                            expired (no renewal reached the database in
                            time) or was taken by another holder */
} sfc_status;

#define SFC_STATUS_COUNT 11
#define SFC_MESSAGE_MAX 512

/* The detail of a failure. `message` is a complete sentence (or two): what
 * was wrong and what to do. */
typedef struct sfc_error {
  sfc_status status;
  char message[SFC_MESSAGE_MAX];
} sfc_error;

/* "InvalidLayout", "ClockMovedBackwards", … — the error kind's name in every
 * language; "Ok" and "Wait" for the others; "Unknown" out of range. Static. */
SFC_API const char *sfc_status_name(sfc_status status);

/* A static one-line description of the status, for when no sfc_error is at
 * hand. */
SFC_API const char *sfc_status_message(sfc_status status);

/* The status table, for bindings that make one error class per kind. */
typedef struct sfc_status_info {
  sfc_status status;
  const char *name;    /* sfc_status_name */
  const char *message; /* sfc_status_message */
  int is_error;        /* 0 for SFC_OK and SFC_WAIT */
} sfc_status_info;

/* The i-th status (i is its number), or NULL past the last. Static. */
SFC_API const sfc_status_info *sfc_status_at(size_t i);

/* ===================================================================== */
/* Layout                                                                */
/* ===================================================================== */

#define SFC_MAX_FIELDS 16
#define SFC_NAME_MAX 32 /* field names: [a-z][a-z0-9_]*, at most 31 bytes */
#define SFC_SPEC_MAX 512
#define SFC_MAX_CLOCK_BITS 8

typedef enum sfc_field_kind {
  SFC_FIELD_TIME = 0,  /* units since the epoch; always the first field */
  SFC_FIELD_SEQ = 1,   /* the per-tick counter */
  SFC_FIELD_CLOCK = 2, /* the clock sequence, bumped on rollback */
  SFC_FIELD_NODE = 3   /* a static value that makes a generator unique */
} sfc_field_kind;

/* Names "time", "seq", "clock", "node". */
SFC_API const char *sfc_field_kind_name(sfc_field_kind kind);

typedef struct sfc_field {
  char name[SFC_NAME_MAX];
  sfc_field_kind kind;
  unsigned bits;  /* width, 1..64 */
  unsigned shift; /* position of the lowest bit in the ID */
  uint64_t max;   /* largest value: 2^bits - 1 */
} sfc_field;

/* A parsed, validated layout. A plain value: copy it, share it. */
typedef struct sfc_layout {
  unsigned field_count;
  sfc_field fields[SFC_MAX_FIELDS]; /* most significant first */
  unsigned total_bits;              /* sum of the widths, <= 64 */
  int64_t epoch_ms;                 /* Unix ms of time value 0 */
  int64_t unit_us;                  /* length of one time unit ("tick") */
  int time_index;                   /* always 0 */
  int seq_index;
  int clock_index; /* -1 when the layout has no clock field */
} sfc_layout;

/* Parses `spec` (grammar below) with its epoch in Unix ms.
 *
 *   spec  := field ("," field)*
 *   field := name ":" bits ["@" unit]
 *   unit  := integer ("us" | "ms" | "s")   only on the time field, default 1ms
 *
 * `time` must be the first field and `seq` must appear once; `clock` is
 * optional (at most SFC_MAX_CLOCK_BITS wide); every other name is a node
 * field; `id` and `time_ms` are the canonical JSON's own keys and name no
 * field. Returns SFC_INVALID_LAYOUT with a message naming the problem: no
 * time or seq field, time not first, a duplicate, malformed or reserved
 * name, a zero-width field, more than 64 bits, a bad unit, an epoch before 1970
 * or in the future, a time field that would run past the year 294000. */
SFC_API sfc_status sfc_layout_parse(const char *spec, int64_t epoch_ms,
                                    sfc_layout *out, sfc_error *err);

/* The presets: "default", "twitter", "discord", "sonyflake", "baidu",
 * "instagram", "jssafe" (sfc_preset_at). SFC_INVALID_LAYOUT for an unknown
 * name, listing the known ones. */
SFC_API sfc_status sfc_layout_preset(const char *name, sfc_layout *out,
                                     sfc_error *err);

/* Number of presets, and the i-th one's name, spec and epoch (static
 * strings). Returns SFC_INVALID_ARGUMENT when i is out of range. */
SFC_API size_t sfc_preset_count(void);
SFC_API sfc_status sfc_preset_at(size_t i, const char **name, const char **spec,
                                 int64_t *epoch_ms);

/* Parses an epoch: Unix milliseconds ("1288834974657") or an ISO-8601 UTC
 * instant ("2024-01-01", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00.000Z").
 * SFC_INVALID_LAYOUT when it is neither. */
SFC_API sfc_status sfc_epoch_parse(const char *text, int64_t *epoch_ms,
                                   sfc_error *err);

/* Writes the canonical spec ("time:41@1ms,worker:10,seq:12": the time unit
 * always given) into buf (SFC_SPEC_MAX bytes is always enough). Returns the
 * length, or the length it would have had if it did not fit. */
SFC_API size_t sfc_layout_spec(const sfc_layout *layout, char *buf, size_t cap);

/* Returns the index of the field called `name`, or -1. */
SFC_API int sfc_layout_field_index(const sfc_layout *layout, const char *name);

/* What a layout can do. */
typedef struct sfc_layout_info {
  double ids_per_second; /* per node: (seq max + 1) ticks per second */
  double node_capacity;  /* distinct node values: 2^(sum of node bits) */
  int64_t time_end_ms;   /* first instant the time field cannot hold */
  uint64_t max_id;       /* largest ID the layout can hold */
} sfc_layout_info;

SFC_API void sfc_layout_describe(const sfc_layout *layout,
                                 sfc_layout_info *out);

/* ===================================================================== */
/* Decode, encode, range                                                 */
/* ===================================================================== */

/* Where a node field's value comes from. */
typedef enum sfc_node_source {
  SFC_SOURCE_EXPLICIT = 0, /* the number given */
  SFC_SOURCE_ENV = 1,      /* an environment variable: SNOWFLAKE_<FIELD>, or
                              NAME of a value "env:NAME" */
  SFC_SOURCE_HOST = 2,     /* the ordinal at the end of the host name
                              ("orders-7" → 7), for Kubernetes StatefulSets */
  SFC_SOURCE_POOL = 3,     /* the first free value of the field's range, held
                              by a lock file in state_dir ("auto") */
  SFC_SOURCE_LEASE = 4     /* leased from a PostgreSQL table ("lease"): see
                              sfc_lease_new */
} sfc_node_source;

/* "explicit", "env", "host", "pool", "lease". */
SFC_API const char *sfc_node_source_name(sfc_node_source source);

/* A value by field name: node values for a generator, field values for
 * sfc_encode_named. A brace list {"worker", 3} is an explicit value. */
typedef struct sfc_node_value {
  const char *name;       /* a field of the layout; for a generator, NULL means
                             the layout's only node field */
  int64_t value;          /* 0..max (SFC_SOURCE_EXPLICIT and SFC_SOURCE_ENV) */
  sfc_node_source source; /* HOST and POOL: resolved by sfc_generator_new */
} sfc_node_value;

/* The parts of one ID. `values[i]` belongs to `layout.fields[i]`; for the
 * time field it is the raw tick count. */
typedef struct sfc_parts {
  uint64_t id;
  int64_t time_us; /* Unix µs of the tick's start */
  int64_t time_ms; /* Unix ms, rounded down */
  uint64_t values[SFC_MAX_FIELDS];
} sfc_parts;

#define SFC_JSON_MAX                                                           \
  (64 + SFC_MAX_FIELDS * (SFC_NAME_MAX + 24)) /* canonical JSON, with NUL */
#define SFC_ISO_MAX 32                        /* ISO-8601 string, with NUL */

/* Splits an ID. SFC_INVALID_ARGUMENT when the ID has bits above the layout's
 * width. Thread-safe. */
SFC_API sfc_status sfc_decode(const sfc_layout *layout, uint64_t id,
                              sfc_parts *out, sfc_error *err);

/* The decode rule, as data: a binding whose calls into the library cost
 * more than the work may split an ID itself with exactly these steps, and
 * gets sfc_decode's parts:
 *
 *   if id > max_id: call sfc_decode (which refuses the ID)
 *   values[i] = (id >> shift[i]) & mask[i]      for i < field_count
 *   time_us = epoch_us + values[0] * unit_us   (within int64)
 *   time_ms = time_us / 1000                   (time_us >= 0: rounded down)
 *
 * values[0] is the time field's tick count, then every other field in
 * layout order, as `layout->fields`. */
typedef struct sfc_decode_rule {
  uint64_t max_id;  /* the largest ID the layout holds */
  int64_t epoch_us; /* Unix µs of time value 0 */
  int64_t unit_us;  /* the length of one tick */
  unsigned field_count;
  unsigned shift[SFC_MAX_FIELDS];
  uint64_t mask[SFC_MAX_FIELDS];
} sfc_decode_rule;
SFC_API void sfc_layout_decode_rule(const sfc_layout *layout,
                                    sfc_decode_rule *out);

/* The inverse of sfc_decode: reads `in->time_us` (rounded down to the tick)
 * and `in->values[i]` of every field but time. SFC_INVALID_ARGUMENT when a
 * value does not fit its field or the time is outside the layout's life. */
SFC_API sfc_status sfc_encode(const sfc_layout *layout, const sfc_parts *in,
                              uint64_t *id, sfc_error *err);

/* sfc_encode with the fields given by name: every field but time exactly
 * once (values 0..max), the time as Unix µs. SFC_INVALID_ARGUMENT names a
 * missing, unknown, repeated, negative or too large field. */
SFC_API sfc_status sfc_encode_named(const sfc_layout *layout, int64_t time_us,
                                    const sfc_node_value *fields, size_t count,
                                    uint64_t *id, sfc_error *err);

/* The smallest and largest IDs whose decoded time lies in [t0_ms, t1_ms):
 * t0 included, t1 not, so that consecutive windows (days, pages) never share
 * an ID — the next window starts at this one's t1. For range scans and
 * pagination (WHERE id BETWEEN min AND max). SFC_INVALID_ARGUMENT when no
 * tick of the layout starts in that interval (t1 <= t0 included). */
SFC_API sfc_status sfc_range(const sfc_layout *layout, int64_t t0_ms,
                             int64_t t1_ms, uint64_t *min_id, uint64_t *max_id,
                             sfc_error *err);

/* The canonical JSON of decoded parts, one compact line, keys in this order:
 * "id" (decimal string), "time_ms", "time" (ISO-8601 UTC, ms, Z), then every
 * other field in layout order. Byte-for-byte the same in every language.
 * Returns the length written (SFC_JSON_MAX is always enough). */
SFC_API size_t sfc_parts_json(const sfc_layout *layout, const sfc_parts *parts,
                              char *buf, size_t cap);

/* Formats Unix ms as "2016-04-30T11:18:25.796Z" (years past 9999 as
 * "+012345-…"). Returns the length. */
SFC_API size_t sfc_format_iso(int64_t unix_ms, char *buf, size_t cap);

/* A UUIDv7 (RFC 9562 §5.7), decoded: its 48-bit Unix ms, 12 bits of
 * rand_a and 62 of rand_b (the version and variant bits are fixed). */
typedef struct sfc_uuid7 {
  char text[37];   /* canonical: 8-4-4-4-12, lowercase, NUL-ended */
  int64_t unix_ms; /* 0 .. 2^48 - 1 */
  uint16_t rand_a;
  uint64_t rand_b;
} sfc_uuid7;

#define SFC_UUID7_JSON_MAX 192 /* canonical JSON of a UUIDv7, with NUL */

/* Parses `len` bytes (no NUL needed at the end) of a UUIDv7: the canonical
 * 8-4-4-4-12 form or 32 hex digits without hyphens, in either case.
 * SFC_INVALID_ARGUMENT, the text quoted, for another length, a character
 * that is not a hex digit or a NUL byte (named with its position, counting
 * from 0), a hyphen missing or out of place, a version other than 7 ("... is
 * a version 4 UUID, not 7") or a variant other than RFC 9562's (0b10).
 * Thread-safe. */
SFC_API sfc_status sfc_uuid7_parse(const char *text, size_t len, sfc_uuid7 *out,
                                   sfc_error *err);

/* The canonical JSON of a decoded UUIDv7, one compact line, keys in this
 * order: "uuid" (the canonical text), "version" (7), "time_ms" (an integer,
 * below 2^53), "time" (ISO-8601 UTC, ms, Z), "rand_a" (an integer),
 * "rand_b" (a decimal string: 62 bits). Byte-for-byte the same in every
 * language. Returns the length written (SFC_UUID7_JSON_MAX is always
 * enough). */
SFC_API size_t sfc_uuid7_json(const sfc_uuid7 *uuid, char *buf, size_t cap);

/* Checks text of `len` bytes before it goes to a function that takes C text
 * (a layout spec, an epoch, a name, a node value, a path): a NUL byte inside
 * would end it early and the rest would be lost silently, so it is refused
 * with SFC_INVALID_ARGUMENT naming `what` and the NUL's position. */
SFC_API sfc_status sfc_text_check(const char *what, const char *text,
                                  size_t len, sfc_error *err);

/* ===================================================================== */
/* String forms                                                          */
/* ===================================================================== */

/* Short text forms of an ID. Each alphabet is in ASCII order and
 * the fixed form is left-padded with the alphabet's zero, so the fixed
 * strings of any two IDs compare bytewise (strcmp, a database's binary
 * collation) as the IDs do. The shortest form drops the padding.
 *
 * Each encoding has a default form: dec's is the shortest
 * ("175928847299117063", the text JSON, decode and every API print: one
 * decimal text everywhere), every other encoding's is the fixed width
 * (they exist to sort as text). Ask for dec's 20 digits with
 * SFC_FORMAT_FIXED when decimal text must sort as the IDs do.
 *
 *   name    alphabet                                       fixed width  default
 *   dec     0-9                                                  20    shortest
 *   hex     0-9a-f (parsed in any case)                          16    fixed
 *   base32  Crockford 0123456789ABCDEFGHJKMNPQRSTVWXYZ; parsed   13    fixed
 *           in any case, I and L read as 1, O as 0
 *           (tsid-creator's string of the same number)
 *   base36  0-9a-z (parsed in any case)                          13    fixed
 *   base58  Bitcoin 123456789ABCDEFGHJKLMNPQRSTUVWXYZ            11    fixed
 *           abcdefghijkmnopqrstuvwxyz (its zero is '1')
 *   base62  0-9A-Za-z (CosId's radix 62)                         11    fixed
 *
 * Thread-safe, no allocation. */
typedef enum sfc_encoding {
  SFC_ENCODING_DEC = 0,
  SFC_ENCODING_HEX = 1,
  SFC_ENCODING_BASE32 = 2,
  SFC_ENCODING_BASE36 = 3,
  SFC_ENCODING_BASE58 = 4,
  SFC_ENCODING_BASE62 = 5
} sfc_encoding;

#define SFC_ENCODING_COUNT 6
#define SFC_FORMAT_SHORTEST 1u /* flag: no left padding */
#define SFC_FORMAT_FIXED 2u    /* flag: padded to the fixed width */
#define SFC_ENCODED_MAX 21     /* longest form (dec, 20 digits) with NUL */

/* "dec", "hex", "base32", "base36", "base58", "base62"; NULL when out of
 * range. Static. */
SFC_API const char *sfc_encoding_name(sfc_encoding encoding);

/* The encoding called `name` (`len` bytes, the exact lowercase names
 * above). SFC_INVALID_ARGUMENT listing the names otherwise. */
SFC_API sfc_status sfc_encoding_by_name(const char *name, size_t len,
                                        sfc_encoding *out, sfc_error *err);

/* Writes the ID's text in `encoding` and a NUL. `flags` 0: the encoding's
 * default form (dec's shortest, the others' fixed width; the row's
 * fixed_by_default); SFC_FORMAT_SHORTEST: the shortest form, no padding (0
 * is then one zero digit); SFC_FORMAT_FIXED: the fixed width, in any
 * encoding (dec's 20 digits included). Returns its length; 0 when the
 * encoding is out of range, `flags` holds both flags or any other bit, or
 * `cap` is too small (SFC_ENCODED_MAX is always enough). */
SFC_API size_t sfc_id_format(uint64_t id, sfc_encoding encoding, unsigned flags,
                             char *buf, size_t cap);

/* Parses `len` bytes (no NUL needed at the end) of an ID in `encoding`,
 * fixed or shortest: a decimal ID is SFC_ENCODING_DEC ("175928847299117063"
 * or its padded 20-digit form). SFC_INVALID_ARGUMENT for an unknown
 * encoding, empty text, more characters than the fixed width, a character
 * outside the alphabet — a sign, a space — or a NUL byte (each named with
 * its position, counting from 0), or a value above 2^64 - 1 (naming the
 * largest text): never a wrap. */
SFC_API sfc_status sfc_id_parse(const char *text, size_t len,
                                sfc_encoding encoding, uint64_t *id,
                                sfc_error *err);

/* An encoding as data, for a binding that formats and parses in its own
 * language: the rules sfc_id_format and sfc_id_parse follow, from their own
 * tables. Formatting writes `digits[d]` for each base-`radix` digit d, most
 * significant first, padded with digits[0] to `width` for the fixed form;
 * the default form (no flag) is the fixed one when `fixed_by_default` is
 * set (every encoding but dec) and the shortest otherwise.
 * Parsing maps each byte b to `values[b]`: its digit, or -1 for a byte
 * outside the alphabet (so case-insensitivity and Crockford's I, L -> 1 and
 * O -> 0 are in the table). */
typedef struct sfc_encoding_info {
  sfc_encoding encoding;
  const char *name;          /* "base32" */
  const char *digits;        /* `radix` characters, digit 0 first */
  unsigned radix;            /* 32 */
  unsigned width;            /* fixed width: 13 */
  const signed char *values; /* 256 entries, by byte */
  bool fixed_by_default;     /* the default form is the fixed width: true
                                for all but dec */
} sfc_encoding_info;

/* Row i of the encodings, in sfc_encoding order (sfc_encoding_at(e) is
 * encoding e's), or NULL past the last. Static. */
SFC_API const sfc_encoding_info *sfc_encoding_at(size_t i);

/* ===================================================================== */
/* Generator                                                             */
/* ===================================================================== */

typedef struct sfc_generator sfc_generator;

/* What to do when the wall clock goes backwards. Each strategy is a row of
 * the table of sfc_rollback_at: its name, default max_wait and max_drift,
 * and what it needs of the layout and the options. */
typedef enum sfc_rollback {
  SFC_ROLLBACK_DEFAULT = 0, /* wait up to max_wait, then `clock` if the layout
                               has a clock field, else refuse as `wait` */
  SFC_ROLLBACK_ERROR = 1,   /* SFC_CLOCK_MOVED_BACKWARDS, saying by how much */
  SFC_ROLLBACK_WAIT = 2,    /* wait up to max_wait, then error */
  SFC_ROLLBACK_CLOCK = 3,   /* wait up to max_wait, then bump the clock
                               field */
  SFC_ROLLBACK_BORROW = 4,  /* keep issuing from the last time issued, up to
                               max_drift ahead; then wait up to max_wait,
                               then error */
  SFC_ROLLBACK_SWITCH = 5   /* wait up to max_wait, then take another free
                               value of the pool whose IDs are all behind the
                               clock and go on at once; the old value stays
                               held (parked) until the clock has passed its
                               high-water mark */
} sfc_rollback;

#define SFC_ROLLBACK_COUNT 6 /* strategies: the rows of sfc_rollback_at */

/* What a strategy needs (sfc_rollback_info.needs). */
#define SFC_NEEDS_CLOCK_FIELD 1u /* a clock field in the layout */
#define SFC_NEEDS_POOL 2u        /* a node field set to auto, and a state_dir */

typedef struct sfc_rollback_info {
  sfc_rollback rollback;
  const char *name;     /* "borrow" */
  int64_t max_wait_ms;  /* its default max_wait */
  int64_t max_drift_ms; /* its default max_drift */
  unsigned needs;       /* SFC_NEEDS_* */
  const char *doc;      /* one line */
} sfc_rollback_info;

/* Row i of the strategies, in sfc_rollback order (sfc_rollback_at(r) is
 * strategy r's), or NULL past the last. */
SFC_API const sfc_rollback_info *sfc_rollback_at(size_t i);

typedef enum sfc_time_source {
  SFC_TIME_WALL = 0,      /* CLOCK_REALTIME read on every call */
  SFC_TIME_MONOTONIC = 1, /* wall clock read once, then CLOCK_MONOTONIC: a
                             step of the wall clock cannot reach the
                             generator */
  SFC_TIME_COUNTER = 2    /* CLOCK_REALTIME, read again once the processor's
                             counter shows the last reading's millisecond
                             over: a step of the wall clock is seen up to one
                             tick late. Where the system's clock does not run
                             on that counter (Linux on x86-64's invariant TSC
                             or arm64's virtual counter; not yet macOS,
                             Windows), and for ticks other than 1 ms or a
                             random sequence start: as SFC_TIME_WALL */
} sfc_time_source;

/* The options of a generator: opaque storage of a fixed size, which a
 * caller may keep on the stack, copy, and fills only through the calls
 * below — never by its bytes. Every option is a row of the table of
 * sfc_option_at (its name, type, default, range and meaning), set by name
 * (sfc_options_set) or by the row's id (sfc_options_set_id); adding an
 * option adds a row, and the size stays. An option left as
 * sfc_options_init made it is "the default".
 *
 * Node values, by field name, are given with sfc_options_set_nodes
 * (sfc_node_value_set makes them from a binding's value). A node field not
 * listed is read from the environment variable SNOWFLAKE_<FIELD> (upper
 * case: SNOWFLAKE_WORKER), which may hold what sfc_node_value_set takes as
 * text. A field with no value fails with SFC_INVALID_ARGUMENT: there is no
 * silent default.
 *
 * The guard (SFC_OPTION_GUARD), on by default: two live generators of one
 * host that could issue the same ID never both run. Every generator — with
 * or without a state_dir, static or from the pool — claims its node value
 * host-wide: one claim per ID space (epoch, time unit, the places and
 * widths of the time, clock and sequence fields) and node bits, whatever
 * the field names, folders, users or environment; a second one fails at
 * creation with SFC_WORKER_UNAVAILABLE naming the holder (and its uid when
 * it is another user's), in this process or another. The OS lets go of the
 * claim when the process dies: Linux, an abstract socket
 * "@snowflake-c/claim/<hash>" (seen by every process of the network
 * namespace: the host, or a pod); Windows, a named section
 * "Global\snowflake-c-<hash>" ("Local\…", one session's, for a process
 * without the right to create global objects); macOS, a locked file
 * /Users/Shared/snowflake-c-<hash>.claim. A value given back before the
 * wall clock has passed its last ID hands over its last tick, clock value
 * and clock table through a record in /dev/shm (else /tmp; macOS:
 * /Users/Shared; Windows: ProgramData), read by its next holder. A claim
 * that cannot be taken (no descriptor left, no such folder) fails creation
 * with SFC_STATE_ERROR: never an unguarded start. The cost is paid at
 * creation and at sfc_generator_free. guard=false: no claim, for setups
 * that mean to share a value (a state_dir still locks its values);
 * sfc_generator_warning_at then says so.
 *
 * Persisted state (SFC_OPTION_STATE_DIR): a lock file and a state file per
 * node value, holding a high-water mark reserved state_reserve ahead and
 * the clock table. None: no files (and the pool, "auto", is unavailable). */
#define SFC_OPTIONS_WORDS 32
typedef struct sfc_options {
  uint64_t opaque_[SFC_OPTIONS_WORDS]; /* private: use the calls */
} sfc_options;

/* Fills `opts` with the defaults: no node values, every option its
 * default (the guard on, no state directory). */
SFC_API void sfc_options_init(sfc_options *opts);

/* The node values: `node[0..count)` is kept by pointer (not copied) until
 * sfc_generator_new, sfc_lease_new or sfc_lease_generator_new has read it.
 * NULL or 0: none. */
SFC_API void sfc_options_set_nodes(sfc_options *opts,
                                   const sfc_node_value *node, size_t count);

/* Largest values of the duration options, in ms. */
#define SFC_MAX_WAIT_MS_MAX 86400000
#define SFC_MAX_DRIFT_MS_MAX 86400000
#define SFC_STATE_RESERVE_MS_MAX 3600000
#define SFC_LEASE_DURATION_MS_MAX 3600000

/* Creates a generator. Copies everything it needs from `layout` and `opts`.
 * Fails with:
 *   SFC_INVALID_ARGUMENT    a node value missing, unknown or out of range; an
 *                           option out of range; `clock` without a clock field
 *   SFC_WORKER_UNAVAILABLE  the node value is held by another live generator
 *                           (the guard, or the state_dir's lock), or the pool
 *                           is full
 *   SFC_STATE_ERROR         the state directory or a state file cannot be
 *                           read or written, or holds something unexpected
 *                           (corrupt, truncated, another layout) — the message
 *                           names the path; nothing is reset silently
 *   SFC_OUT_OF_MEMORY       an allocation failed */
SFC_API sfc_status sfc_generator_new(const sfc_layout *layout,
                                     const sfc_options *opts,
                                     sfc_generator **out, sfc_error *err);

/* Closes without freeing: writes the exact last time issued to the state
 * file (if any), stops the keeper and releases the node value. When the
 * wall clock has not passed the last ID issued, the guard hands it over
 * first (see sfc_options: the guard), so that a generator of the same value
 * created next, in this process or another, starts after it (with the guard
 * off, only a state_dir does). IDs issued at a caller's times (sfc_next_at,
 * sfc_next_ids_at) are not handed over. Calls may be running on `gen` on
 * other threads: each either issues before the close (and is part of what
 * is handed over) or fails like every later call, with SFC_INVALID_ARGUMENT
 * ("the generator is closed: create a new one"). The memory stays valid
 * until sfc_generator_free. Closing twice does nothing; NULL is ignored.
 * Thread-safe. */
SFC_API void sfc_generator_close(sfc_generator *gen);

/* Whether `gen` is closed: by sfc_generator_close, or by a newer generator
 * of this process that took its node value over (see sfc_generator_new).
 * A binding's "closed" property answers this. false for NULL.
 * Thread-safe. */
SFC_API bool sfc_generator_closed(const sfc_generator *gen);

/* Closes (unless closed) and frees. No call may be running on `gen`, nor
 * start after. NULL is ignored. */
SFC_API void sfc_generator_free(sfc_generator *gen);

/* The fast path's rule, as data: a binding whose calls into the library
 * cost more than the work may issue the common case itself, on the
 * generator's own state word, with exactly these steps — and must call the
 * core (sfc_next_now, …) for everything else:
 *
 *   tick = wall clock in Unix ms - epoch_ms
 *   w = *word (atomic load), t = (int64_t)(w >> time_shift)
 *   if t < tick and 0 <= tick <= time_max:
 *       next = (w & keep_mask) | ((uint64_t)tick << time_shift)
 *   else if t == tick and (w & seq_mask) != seq_mask:  next = w + seq_one
 *   else: call the core
 *   if tick > *mark (atomic load): call the core (the hand-over is written
 *       ahead of the IDs it covers: it moves the mark)
 *   compare-and-swap *word from w to next; lost: `contended_pauses` spin-wait
 *       hints (the CPU's pause: Java's Thread.onSpinWait), then call the core
 *   if t != tick: atomically add (w & seq_mask) / seq_one + 1 to
 *       *issued_closed (the IDs of the tick left, for the stats)
 *   the ID is next
 *
 * A closed generator's word sends every such step to the core, which
 * answers the closed error. False (and *out untouched) when the generator
 * has no such path: another time source (time_source=counter where its
 * counter runs: the core's check is cheaper than the rule's clock read),
 * ticks other than 1 ms, a random sequence start, a state_dir (its mark
 * moves), a shared generator. The
 * rule does not see forks: a runtime that goes on running in a forked
 * child must call the core there. The addresses hold until
 * sfc_generator_free. */
typedef struct sfc_fast_rule {
  /* 8-byte aligned, read and written atomically only: */
  uint64_t *word;          /* the state word */
  uint64_t *issued_closed; /* IDs of the ticks left */
  int64_t epoch_ms;
  unsigned time_shift;
  uint64_t time_max;
  uint64_t seq_one;          /* one step of the sequence, in place */
  uint64_t seq_mask;         /* the sequence bits, in place */
  uint64_t keep_mask;        /* what a new tick keeps: clock and node bits */
  int64_t *mark;             /* 8-byte aligned, read atomically only, after the
                                word (read with acquire: the mark moves down before
                                the word it guards changes): no ID's tick may pass
                                it */
  unsigned contended_pauses; /* after a lost compare-and-swap: so that the
                                thread that won issues a run of IDs while the
                                word's cache line stays in its core */
} sfc_fast_rule;
SFC_API bool sfc_generator_fast_rule(const sfc_generator *gen,
                                     sfc_fast_rule *out);

/* Whether a call on `gen` may wait on a lock the generator holds across file
 * I/O: true with a state_dir (its keeper writes the mark under that lock).
 * A runtime that calls the core from where it must not block — a critical
 * FFM downcall, which holds up the garbage collector — calls such a
 * generator another way. false for NULL. Thread-safe. */
SFC_API bool sfc_generator_may_block(const sfc_generator *gen);

/* Many processes, one node value: a generator placed in memory the host
 * provides (PostgreSQL's shared memory, an anonymous shared mapping made
 * before a pre-forking server forks its workers), for hosts whose processes
 * should all draw from one node value. The host's first process creates it
 * once, in `mem` (at least sfc_generator_shared_size() bytes, 64-byte
 * aligned); every process forked from that one afterwards, which sees the
 * memory at the same address, calls sfc_next, sfc_next_ids, the _at and
 * _now entries and sfc_generator_stats on it at once. The hot path stays
 * lock-free across processes (one compare-and-swap on the state word in
 * that memory); the slow path (rollback, the state file) takes a
 * process-shared lock that a process dying inside it does not leave held
 * (robust, on Linux; on macOS, which has no robust locks, it stays held).
 * One host-wide claim covers the whole group, held by the creator's
 * descriptors, which the forked processes share.
 *
 * The node value is fixed: explicit, from the environment or the host name
 * ("auto" and rollback=switch take values from a pool, one per process, and
 * are refused). There is no keeper thread: with a state_dir, the process
 * whose ID reaches the reserved mark writes the next one itself. Forks are
 * the point here: no SFC_GENERATOR_FORKED. Only the creating process calls
 * sfc_generator_free (elsewhere it does nothing), once no other process
 * uses the generator; the host then frees `mem`. Fails like
 * sfc_generator_new, and with SFC_INVALID_ARGUMENT for memory too small or
 * misaligned, for a node value from a pool, and where the system has no
 * process-shared lock (Windows). */
SFC_API size_t sfc_generator_shared_size(void);
SFC_API sfc_status sfc_generator_new_shared(void *mem, size_t size,
                                            const sfc_layout *layout,
                                            const sfc_options *opts,
                                            sfc_generator **out,
                                            sfc_error *err);

/* SFC_OK for a generator, SFC_INVALID_ARGUMENT ("the generator is closed")
 * for NULL: the one answer of every language to a call on a closed
 * generator, since a binding holds NULL once it is closed. The sfc_next
 * family checks this itself. */
SFC_API sfc_status sfc_generator_check(const sfc_generator *gen,
                                       sfc_error *err);

/* The next ID: reads the clock once and, when the tick's sequence has run
 * out or the clock went back a little, waits (short spin, then sleep).
 * Thread-safe, lock-free. Returns SFC_OK, or one of
 * SFC_CLOCK_MOVED_BACKWARDS, SFC_TIME_EXHAUSTED, SFC_GENERATOR_FORKED,
 * SFC_STATE_ERROR, SFC_WORKER_UNAVAILABLE (a forked pool child found no free
 * value). Never returns SFC_WAIT. */
SFC_API sfc_status sfc_next(sfc_generator *gen, uint64_t *id, sfc_error *err);

/* Fills ids[0..n) with consecutive IDs, reserving each tick's run with one
 * compare-and-swap. Waits like sfc_next. On failure the IDs already written
 * are valid and unique; `*filled` (may be NULL) says how many. */
SFC_API sfc_status sfc_next_ids(sfc_generator *gen, uint64_t *ids, size_t n,
                                size_t *filled, sfc_error *err);

/* The deterministic entries: `now_us` is the caller's clock reading (Unix
 * µs). They never sleep and never read the clock. SFC_WAIT means: nothing
 * (more) was issued; wait `*wait_us` microseconds, then call again. The
 * vectors drive these. With several threads, prefer sfc_next_now: a
 * reading taken before another thread's newer ID looks like a rollback here.
 * Thread-safe, lock-free. */
SFC_API sfc_status sfc_next_at(sfc_generator *gen, int64_t now_us, uint64_t *id,
                               int64_t *wait_us, sfc_error *err);
SFC_API sfc_status sfc_next_ids_at(sfc_generator *gen, int64_t now_us,
                                   uint64_t *ids, size_t n, size_t *filled,
                                   int64_t *wait_us, sfc_error *err);

/* The live non-blocking entries, for bindings that wait in their own idiom
 * (releasing the GIL, yielding to an event loop): like sfc_next and
 * sfc_next_ids, but instead of waiting they return SFC_WAIT with `*wait_us`
 * (IDs already written stay valid; `*filled` says how many). They read the
 * clock themselves, after the state word, so that a thread preempted
 * between a clock read and its compare-and-swap never mistakes its stale
 * reading for a clock step backwards. Thread-safe, lock-free. */
SFC_API sfc_status sfc_next_now(sfc_generator *gen, uint64_t *id,
                                int64_t *wait_us, sfc_error *err);
SFC_API sfc_status sfc_next_ids_now(sfc_generator *gen, uint64_t *ids, size_t n,
                                    size_t *filled, int64_t *wait_us,
                                    sfc_error *err);

/* The generator's clock: Unix µs from its time source. */
SFC_API int64_t sfc_generator_now_us(const sfc_generator *gen);

/* Waits about `wait_us` microseconds: spins for short waits, then yields,
 * then sleeps — never burning a core for long. */
SFC_API void sfc_pause(int64_t wait_us);

SFC_API const sfc_layout *sfc_generator_layout(const sfc_generator *gen);

/* The native memory one generator holds, in bytes: what a binding reports
 * to its garbage collector (V8's external memory) while the generator
 * lives. */
SFC_API size_t sfc_generator_memory(const sfc_generator *gen);

/* A generator's counters and what is in force: opaque storage of a fixed
 * size, read through the stats table (sfc_stats_fact_at, sfc_stats_fact,
 * sfc_stats_entry) or by id (sfc_stat, sfc_stats_uint, …). Exact when no
 * call is running, close otherwise. Its texts and names are owned by the
 * generator. */
#define SFC_STATS_WORDS 160
typedef struct sfc_stats {
  uint64_t opaque_[SFC_STATS_WORDS]; /* private: use the calls */
} sfc_stats;

SFC_API void sfc_generator_stats(const sfc_generator *gen, sfc_stats *out);

/* What the user of the generator should be told, one warning at a time:
 * the i-th (0, 1, …) as its kind, with its text in `*text`; NULL past the
 * last. The kinds: "Unguarded" (its node value is not guarded: the guard is
 * off, or the host cannot hold a claim) and "LayoutEnding" (its layout's
 * time field runs out within ten years, or has run out). Every binding says
 * each once in its idiom when the generator is created (Python warnings of
 * the category <kind>Warning, Node `process.emitWarning`, Java
 * `System.Logger`, the CLI and the PostgreSQL server log). Owned by the
 * generator. */
SFC_API const char *sfc_generator_warning_at(const sfc_generator *gen, size_t i,
                                             const char **text);

/* The kinds of sfc_generator_warning_at, for bindings that make one warning
 * class per kind: the i-th kind's name, with a line on it in `*doc`; NULL
 * past the last. Static. */
SFC_API const char *sfc_warning_kind_at(size_t i, const char **doc);

/* ===================================================================== */
/* Leases: node values from a PostgreSQL table                          */
/* ===================================================================== */

/* For fleets without ordinals (ECS, Nomad, VM groups, compose --scale): a
 * node field given as "lease" takes its value from a plain table of the
 * PostgreSQL the service already uses (sfc_lease_table_sql; no extension,
 * table privileges only). The core owns the protocol — the SQL, its
 * parameters, the timings and the fencing — and the host only runs the
 * statements it is handed, through its usual driver, and hands the row
 * back:
 *
 *   sfc_lease_new(&layout, &opts, &lease, &err);
 *   for (;;) {                              // acquire, then renew
 *     sfc_lease_query q;
 *     int64_t wait_us;
 *     if (sfc_lease_due(lease, &q, &wait_us) == SFC_LEASE_IDLE) {
 *       sleep(wait_us); continue;          // the core caps it
 *     }
 *     run q.sql with q.params[0..q.nparams) as text, one row back:
 *       ok:     sfc_lease_done(lease, &q, row, ncols, &err) (row NULL: none)
 *       failed: sfc_lease_failed(lease, &q, the driver's message)
 *     after the first acquire: sfc_lease_generator_new(lease, &opts, &gen)
 *   }
 *   sfc_generator_close(gen); sfc_lease_release(lease, &q); run q; free.
 *
 * The row carries the value's horizon: the holder issues no ID past the
 * horizon it wrote (the mark written ahead, in the database), and a later
 * holder of the value starts after it. The holder also fences itself on
 * its own monotonic clock: no ID from the moment its lease may have
 * expired (the time its last acquire or renewal was made, plus the
 * duration, less a margin for clock-rate error); calls fail with
 * SFC_LEASE_EXPIRED then, until a renewal succeeds. Both bounds are one
 * limit folded into the mark the hot path already compares against.
 * docs/leases.md gives the argument. A lease is used from one thread at a
 * time (the host's renewer); its generator from any. */
typedef struct sfc_lease sfc_lease;

typedef enum sfc_lease_step {
  SFC_LEASE_IDLE = 0,    /* nothing due: wait *wait_us */
  SFC_LEASE_ACQUIRE = 1, /* take a value: the row says which */
  SFC_LEASE_RENEW = 2,   /* push the expiry and the horizon ahead */
  SFC_LEASE_RELEASE = 3  /* give the value back, with the last tick issued */
} sfc_lease_step;

#define SFC_LEASE_PARAMS 8
#define SFC_LEASE_PARAM_MAX 160

/* One statement to run, its parameters as text ($1, $2, …). */
typedef struct sfc_lease_query {
  sfc_lease_step step;
  const char *sql; /* static */
  int nparams;
  const char *params[SFC_LEASE_PARAMS]; /* into `text` */
  int64_t made_us; /* the monotonic clock when it was made: the lease's
                      deadline counts from here (before it was sent) */
  char text[SFC_LEASE_PARAMS][SFC_LEASE_PARAM_MAX];
} sfc_lease_query;

/* The SQL that creates the table (idempotent), for `snowflake-c lease
 * init` and migrations. Static. */
SFC_API const char *sfc_lease_table_sql(void);

/* A lease for the node field of `opts` given as "lease" (or from its
 * environment variable: SNOWFLAKE_WORKER=lease), in the ID space of
 * `layout`. Reads the options lease_duration and lease_key.
 * SFC_INVALID_ARGUMENT when no node field is "lease"; SFC_OUT_OF_MEMORY. */
SFC_API sfc_status sfc_lease_new(const sfc_layout *layout,
                                 const sfc_options *opts, sfc_lease **out,
                                 sfc_error *err);

/* Whether `opts` gives a node field of `layout` as "lease" (or its
 * environment variable does: SNOWFLAKE_WORKER=lease): such a generator is
 * made through sfc_lease_new, every other through sfc_generator_new. False
 * as well when the node values do not resolve: sfc_generator_new then says
 * why. */
SFC_API bool sfc_lease_wanted(const sfc_layout *layout,
                              const sfc_options *opts);

/* The statement due now, or SFC_LEASE_IDLE and how long the host sleeps
 * before it calls again: until the next statement, at most 50 ms while the
 * value is held (a call that reached the horizon asks for a renewal
 * sooner) and 200 ms while acquiring (the acquire's end is told that
 * soon). A host adds no timing of its own. */
SFC_API sfc_lease_step sfc_lease_due(sfc_lease *lease, sfc_lease_query *q,
                                     int64_t *wait_us);

/* The row `q` returned: `row[0..ncols)` as text (NULL: SQL NULL), or row
 * NULL for no row. SFC_OK, or what it means: SFC_WORKER_UNAVAILABLE when
 * every value of the field's range is held (the message says how many),
 * SFC_LEASE_EXPIRED when the value was taken by another holder (the
 * generator stops for good: create a new lease and generator). An acquire
 * that lost a race to another acquirer is due again at once. */
SFC_API sfc_status sfc_lease_done(sfc_lease *lease, const sfc_lease_query *q,
                                  const char *const *row, int ncols,
                                  sfc_error *err);

/* Whether the acquire is over: SFC_OK once a value is held; SFC_WAIT while
 * it may go on (for a lease's time from sfc_lease_new: run what
 * sfc_lease_due hands out meanwhile); then SFC_WORKER_UNAVAILABLE, saying
 * why (the last failure, else the races lost to other acquirers). A host
 * that gives up releases (sfc_lease_release) and frees the lease. */
SFC_API sfc_status sfc_lease_acquired(sfc_lease *lease, sfc_error *err);

/* `q` could not be run (no connection, a timeout): retried with backoff;
 * `why` is kept for the stats and the error past the deadline. */
SFC_API void sfc_lease_failed(sfc_lease *lease, const sfc_lease_query *q,
                              const char *why);

/* The generator on the value acquired: `opts` as for sfc_generator_new
 * (its node field "lease" gets the value), starting after the previous
 * holder's horizon — the rollback strategy applies when this host's clock
 * is behind it. SFC_INVALID_ARGUMENT before a value is acquired, or a
 * second time; the generator must be freed before the lease. */
SFC_API sfc_status sfc_lease_generator_new(sfc_lease *lease,
                                           const sfc_options *opts,
                                           sfc_generator **out, sfc_error *err);

/* Whether IDs may be issued now: a value held and its deadline ahead. */
SFC_API bool sfc_lease_valid(const sfc_lease *lease);

/* The statement that gives the value back (the generator closed first:
 * the row keeps its exact last tick); false when there is nothing to give
 * back. */
SFC_API bool sfc_lease_release(sfc_lease *lease, sfc_lease_query *q);

/* What the stats show of a lease: opaque storage of a fixed size, read
 * through its table (sfc_lease_stats_fact_at, sfc_lease_stats_fact) or by
 * id (sfc_lease_stat, sfc_lease_stats_uint, …), as a generator's stats are.
 * Its texts are owned by the lease. */
#define SFC_LEASE_STATS_WORDS 96
typedef struct sfc_lease_stats {
  uint64_t opaque_[SFC_LEASE_STATS_WORDS]; /* private: use the calls */
} sfc_lease_stats;
SFC_API void sfc_lease_stats_get(const sfc_lease *lease, sfc_lease_stats *out);

SFC_API void sfc_lease_free(sfc_lease *lease);

/* ===================================================================== */
/* Binding contract                                                      */
/* ===================================================================== */

/* What a binding walks instead of re-coding policy: the options
 * of a generator, the facts of a layout and the stats, each a table with
 * names, types, ranges and one-line docs, and the helpers that turn a
 * language's values into the core's with the same rules and messages
 * everywhere. Names are words in snake_case ("max_wait"); a binding writes
 * them in its own casing ("maxWait"), and every *_find accepts any casing.
 * Tables are static: walk them with i = 0, 1, … until NULL. */

/* The type of a value in the tables, and of a value a binding hands over. */
typedef enum sfc_type {
  SFC_TYPE_NONE = 0,     /* no value: None, null, undefined — the default */
  SFC_TYPE_BOOL = 1,     /* i: 0 or 1 */
  SFC_TYPE_INT = 2,      /* i */
  SFC_TYPE_UINT = 3,     /* u: IDs and counters, up to 2^64 - 1 */
  SFC_TYPE_DOUBLE = 4,   /* d */
  SFC_TYPE_TEXT = 5,     /* text, len bytes (NULL text: none) */
  SFC_TYPE_DURATION = 6, /* i whole seconds + nanos (0..999999999): a
                            language's duration object; options hold ms */
  SFC_TYPE_CHOICE = 7,   /* an option that is one of its `choices` (text) */
  SFC_TYPE_PATH = 8,     /* an option that names a folder (text) */
  SFC_TYPE_LIST = 9,     /* a layout's fields: u records, see sfc_field_fact */
  SFC_TYPE_MAP = 10      /* a stats map by node field: see sfc_stats_entry */
} sfc_type;

/* "none", "bool", "int", "uint", "double", "text", "duration", "choice",
 * "path", "list", "map". */
SFC_API const char *sfc_type_name(sfc_type type);

/* One value, tagged by `type`; unused members are ignored. */
typedef struct sfc_value {
  sfc_type type;
  int64_t i;
  uint64_t u;
  double d;
  const char *text;
  size_t len;    /* TEXT given to the core: its length (no NUL needed at the
                    end, except for a PATH option, which is kept) */
  int64_t nanos; /* DURATION */
} sfc_value;

/* ---- Options ---------------------------------------------------------- */

typedef enum sfc_option {
  SFC_OPTION_ROLLBACK = 0,
  SFC_OPTION_MAX_WAIT = 1,
  SFC_OPTION_MAX_DRIFT = 2,
  SFC_OPTION_RANDOM_START = 3,
  SFC_OPTION_TIME_SOURCE = 4,
  SFC_OPTION_STATE_DIR = 5,
  SFC_OPTION_STATE_RESERVE = 6,
  SFC_OPTION_GUARD = 7,
  SFC_OPTION_LEASE_DURATION = 8,
  SFC_OPTION_LEASE_KEY = 9
} sfc_option;

typedef struct sfc_option_info {
  sfc_option option;
  const char *name;           /* "max_wait" */
  sfc_type type;              /* BOOL, DURATION (ms), CHOICE, PATH or TEXT
                                 (kept by pointer, as PATH) */
  const char *default_text;   /* the default, in words */
  int64_t min, max;           /* DURATION: the range in ms; PATH: of its
                                 length in characters */
  const char *const *choices; /* CHOICE: the names, NULL-terminated */
  const char *doc;            /* one line */
} sfc_option_info;

/* The i-th option, or NULL past the last. */
SFC_API const sfc_option_info *sfc_option_at(size_t i);

/* The option called `name` (`len` bytes) in any casing: "max_wait",
 * "maxWait", "MaxWait", "max-wait". NULL when there is none. */
SFC_API const sfc_option_info *sfc_option_find(const char *name, size_t len);

/* How a caller names the options: as the table does (state_dir: Python, C,
 * SQL), in camelCase (stateDir: Node.js, Java) or as a command line's flag
 * (--state-dir). */
typedef enum sfc_terms {
  SFC_TERMS_SNAKE = 0,
  SFC_TERMS_CAMEL = 1,
  SFC_TERMS_FLAG = 2
} sfc_terms;

/* `text` (a message of the core's) into `out` with every option name of two
 * words or more (state_dir, max_wait; a one-word name is also a word of the
 * prose) written in the caller's `terms`. NUL-terminated, cut at `cap`;
 * returns the length the whole text needs, as snprintf does. */
SFC_API size_t sfc_text_in_terms(const char *text, sfc_terms terms, char *out,
                                 size_t cap);

/* ": did you mean 'gen'?" into `out` for `typed` (`len` bytes), a name the
 * caller does not know: the `names` that it begins, else the nearest within
 * a few edits (fewer for short words), at most three, each written `quote`
 * `prefix` name `quote` ("--" for flags). "" when none is near. Returns
 * the length written (cut at `cap`). */
SFC_API size_t sfc_suggest(const char *typed, size_t len,
                           const char *const *names, size_t count,
                           const char *prefix, const char *quote, char *out,
                           size_t cap);

/* Sets the option called `name` (any casing, `len` bytes) in `opts` from a
 * binding's value; SFC_TYPE_NONE restores its default. What each type of
 * option takes:
 *   BOOL      BOOL, or TEXT "true"/"false" — never a number
 *   DURATION  INT or UINT (ms), DOUBLE (ms, a fraction rounds up to the
 *             next whole ms), DURATION (rounds up likewise), or TEXT: a
 *             number with an optional unit, "250", "250ms", "1.5s", "800us"
 *   CHOICE    TEXT, one of the choices
 *   PATH      TEXT, kept by pointer until sfc_generator_new: NUL-terminated
 *             at `len`, no NUL inside, not empty
 * SFC_INVALID_ARGUMENT, naming the option as given, for an unknown option,
 * a value of another type, a negative or too large duration, an unknown
 * choice (listing them). `opts` is unchanged then. */
SFC_API sfc_status sfc_options_set(sfc_options *opts, const char *name,
                                   size_t len, const sfc_value *value,
                                   sfc_error *err);

/* sfc_options_set for the option whose row is `option` (its messages name
 * it as the table does). SFC_INVALID_ARGUMENT for an id past the table. */
SFC_API sfc_status sfc_options_set_id(sfc_options *opts, sfc_option option,
                                      const sfc_value *value, sfc_error *err);

/* The option's value in `opts`, as the table types it: BOOL (i), DURATION
 * as INT ms (i), CHOICE and PATH and TEXT as TEXT (a static name, or the
 * pointer set); SFC_TYPE_NONE for a duration or a text left unset (its
 * default applies). SFC_INVALID_ARGUMENT for an id past the table. */
SFC_API sfc_status sfc_options_get(const sfc_options *opts, sfc_option option,
                                   sfc_value *out);

/* Makes a node value for field `name` (NULL: the layout's only node field)
 * from a binding's value: INT or UINT 0..2^63 - 1, or TEXT "3", "auto" (the
 * pool), "host" (the host-name ordinal) or "env:NAME" (the environment
 * variable NAME, read now: Kubernetes' JOB_COMPLETION_INDEX in an Indexed
 * Job, or a pod's apps.kubernetes.io/pod-index label exposed through the
 * Downward API). The range of the field is checked by sfc_generator_new.
 * SFC_INVALID_ARGUMENT for a negative number, other text or another type. */
SFC_API sfc_status sfc_node_value_set(sfc_node_value *out, const char *name,
                                      const sfc_value *value, sfc_error *err);

/* ---- Layouts ---------------------------------------------------------- */

/* The layout of a binding's arguments, by the one rule of every language
 * (NULL: not given): `layout`, a layout the caller already holds (a
 * binding's Layout object), or the trio `preset`, `spec`, `epoch`:
 *   nothing                   the "default" preset
 *   layout                    that layout, as it is
 *   preset                    that preset, with its own epoch
 *   spec and epoch            sfc_layout_parse
 * SFC_INVALID_ARGUMENT for a layout with any of the trio (a layout carries
 * its spec and epoch), a preset with a spec, a preset with an epoch (a
 * preset carries its epoch; give its spec with the new epoch instead), or a
 * spec without its epoch. `epoch` is text as sfc_epoch_parse takes it; a
 * binding writes a number in decimal. */
SFC_API sfc_status sfc_layout_resolve(const sfc_layout *layout,
                                      const char *preset, const char *spec,
                                      const char *epoch, sfc_layout *out,
                                      sfc_error *err);

/* sfc_layout_resolve for IDs made elsewhere (decode, encode, range, a
 * query's SQL): the same rule, except that nothing given is refused
 * (SFC_INVALID_ARGUMENT) rather than read as the "default" preset — an ID
 * read under a layout other than its own gives a believable wrong answer.
 * A generator's layout is its own: sfc_layout_resolve. */
SFC_API sfc_status sfc_layout_resolve_for_ids(const sfc_layout *layout,
                                              const char *preset,
                                              const char *spec,
                                              const char *epoch,
                                              sfc_layout *out, sfc_error *err);

/* The name of the preset this layout is (same spec and epoch), or NULL. */
SFC_API const char *sfc_layout_preset_name(const sfc_layout *layout);

/* What a stat is to a monitoring system (Prometheus, Micrometer): a counter
 * only grows while the generator (or the lease) lives; a gauge goes up and
 * down; NONE for text, maps, the facts of a layout and the numbers of a
 * lease that are not watched (its value, horizon and duration). */
typedef enum sfc_metric {
  SFC_METRIC_NONE = 0,
  SFC_METRIC_COUNTER = 1,
  SFC_METRIC_GAUGE = 2
} sfc_metric;

/* A named, typed fact: a row of the layout, field and stats tables. */
typedef struct sfc_fact_info {
  const char *name;  /* "ids_per_second" */
  sfc_type type;     /* INT, UINT, DOUBLE, TEXT, LIST or MAP */
  const char *doc;   /* one line */
  sfc_metric metric; /* stats: how a monitoring system reads it */
  /* The metric's own name and help where they are not `name` and `doc`
   * (a time in ms shown in seconds, its name ending _seconds), else NULL. */
  const char *metric_name, *metric_help;
} sfc_fact_info;

/* A layout's description: "name" (TEXT, none unless a preset), "spec",
 * "epoch_ms", "unit_us", "total_bits", "ids_per_second", "node_capacity",
 * "time_end_ms", "max_id", "fields" (LIST). NULL past the last. */
SFC_API const sfc_fact_info *sfc_layout_fact_at(size_t i);

/* Fact i of `layout` into `out`; TEXT is written to buf (SFC_SPEC_MAX is
 * enough) or points to static text. SFC_INVALID_ARGUMENT past the last. */
SFC_API sfc_status sfc_layout_fact(const sfc_layout *layout, size_t i,
                                   sfc_value *out, char *buf, size_t cap);

/* The record of each element of the "fields" list: "name", "kind",
 * "bits", "shift", "max". NULL past the last. */
SFC_API const sfc_fact_info *sfc_field_fact_at(size_t i);
SFC_API sfc_status sfc_field_fact(const sfc_field *field, size_t i,
                                  sfc_value *out);

/* ---- Stats ------------------------------------------------------------ */

/* The stats, each a row of this table; the id is the row's index. */
typedef enum sfc_stat {
  SFC_STAT_IDS_ISSUED = 0,
  SFC_STAT_WAITS = 1, /* a tick's sequence used up, the clock behind, the
                         mark not yet reserved */
  SFC_STAT_BORROWED_TICKS = 2,
  SFC_STAT_ROLLBACKS = 3,
  SFC_STAT_ROLLBACKS_WAITED = 4,
  SFC_STAT_ROLLBACKS_REFUSED = 5, /* answered SFC_CLOCK_MOVED_BACKWARDS */
  SFC_STAT_CLOCK_BUMPS = 6,
  SFC_STAT_NODE_SWITCHES = 7,
  SFC_STAT_LAST_TIME_MS = 8,
  SFC_STAT_CLOCK = 9,
  SFC_STAT_ROLLBACK = 10, /* the strategy in force (never "default") */
  SFC_STAT_MAX_WAIT_MS = 11,
  SFC_STAT_MAX_DRIFT_MS = 12,
  SFC_STAT_NODE = 13,         /* MAP: the node values, in layout order */
  SFC_STAT_NODE_SOURCES = 14, /* MAP: sfc_node_source_name of each */
  SFC_STAT_GUARD = 15         /* "held: <the claim's name>" or "off" */
} sfc_stat;

/* The stats, in sfc_stat order: the counters (UINT, SFC_METRIC_COUNTER),
 * "last_time_ms", "clock", "rollback" (TEXT), "max_wait_ms", "max_drift_ms"
 * (gauges but for rollback), "node" and "node_sources" (MAP by node field),
 * "guard" (TEXT). NULL past the last. */
SFC_API const sfc_fact_info *sfc_stats_fact_at(size_t i);
SFC_API sfc_status sfc_stats_fact(const sfc_stats *stats, size_t i,
                                  sfc_value *out);

/* Entry j of the MAP fact i: its key (a node field's name) and value.
 * Returns 0 past the last entry. */
SFC_API int sfc_stats_entry(const sfc_stats *stats, size_t i, size_t j,
                            const char **key, sfc_value *out);

/* One stat by id, for C callers: a UINT stat's value, an INT stat's, a
 * TEXT stat's text (owned by the generator) — 0 or NULL for a stat of
 * another type or an id past the table. */
SFC_API uint64_t sfc_stats_uint(const sfc_stats *stats, sfc_stat stat);
SFC_API int64_t sfc_stats_int(const sfc_stats *stats, sfc_stat stat);
SFC_API const char *sfc_stats_text(const sfc_stats *stats, sfc_stat stat);

/* A lease's stats, each a row of this table; the id is the row's index. */
typedef enum sfc_lease_stat {
  SFC_LEASE_STAT_STATE = 0,      /* "acquiring", "held", "expired", "lost",
                                    "released" */
  SFC_LEASE_STAT_FIELD = 1,      /* the node field's name */
  SFC_LEASE_STAT_VALUE = 2,      /* the node value, -1 before one is held */
  SFC_LEASE_STAT_EXPIRES_MS = 3, /* Unix ms: the deadline on this host's
                                    clock */
  SFC_LEASE_STAT_HORIZON_MS = 4, /* Unix ms: no ID past it */
  SFC_LEASE_STAT_RENEWALS = 5,
  SFC_LEASE_STAT_FAILURES = 6,
  SFC_LEASE_STAT_ERROR = 7,      /* the last failure, or "" */
  SFC_LEASE_STAT_DURATION_MS = 8 /* the lease, by the database's clock: a
                                    host's acquire gives up after one, and
                                    its statements time out at a third */
} sfc_lease_stat;

/* A lease's stats, in sfc_lease_stat order: "state", "field" (TEXT),
 * "value", "expires_ms" (a gauge), "horizon_ms" (INT), "renewals",
 * "failures" (counters), "error" (TEXT), "duration_ms" (INT). NULL past
 * the last. */
SFC_API const sfc_fact_info *sfc_lease_stats_fact_at(size_t i);
SFC_API sfc_status sfc_lease_stats_fact(const sfc_lease_stats *stats, size_t i,
                                        sfc_value *out);

/* One of a lease's stats by id, for C callers, as sfc_stats_uint, … */
SFC_API uint64_t sfc_lease_stats_uint(const sfc_lease_stats *stats,
                                      sfc_lease_stat stat);
SFC_API int64_t sfc_lease_stats_int(const sfc_lease_stats *stats,
                                    sfc_lease_stat stat);
SFC_API const char *sfc_lease_stats_text(const sfc_lease_stats *stats,
                                         sfc_lease_stat stat);

#ifdef __cplusplus
}
#endif

#endif /* SNOWFLAKE_C_H */
