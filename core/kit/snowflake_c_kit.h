/* The binding kit: what every consumer of the core (the CLI, the PostgreSQL
 * extension, the service) would otherwise write again — the canonical JSON
 * of the core's tables, and the node list "NAME=VALUE,…". Generic C on the
 * public API alone: a host reaches it through a sink that takes bytes, so
 * that the same walk writes to a FILE, a PostgreSQL StringInfo or an HTTP
 * response. Compiled into the core's archive; not part of its ABI. */
#ifndef SNOWFLAKE_C_KIT_H
#define SNOWFLAKE_C_KIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "snowflake_c.h"

/* Where the kit's text goes: `write` takes `n` bytes (no NUL). */
typedef struct sfk_sink {
  void (*write)(void *ctx, const char *bytes, size_t n);
  void *ctx;
} sfk_sink;

/* Text into a sink: NUL-terminated, and formatted (at most 511 bytes a call,
 * cut there). */
void sfk_put(const sfk_sink *out, const char *text);
void sfk_printf(const sfk_sink *out, const char *format, ...);

/* A sink that writes to a stdio stream. */
sfk_sink sfk_file_sink(FILE *out);

/* Text that grows as the sink writes; `failed` once an allocation failed
 * (the text is then cut short). Free with sfk_buffer_free. */
typedef struct sfk_buffer {
  char *data; /* NUL-terminated while not failed */
  size_t len, cap;
  bool failed;
} sfk_buffer;

sfk_sink sfk_buffer_sink(sfk_buffer *buf);
void sfk_buffer_free(sfk_buffer *buf);

/* ---- JSON, by the one rule of every host ---------------------------------
 * A value named "id" or ending in "_id" is an ID: a decimal string, since a
 * JSON reader that reads numbers as doubles loses integers above 2^53;
 * every other number is a JSON number. */

bool sfk_is_id(const char *name);
void sfk_json_text(const sfk_sink *out, const char *text);
void sfk_json_value(const sfk_sink *out, const sfc_value *v, bool id);

/* One compact object each, keys in the core's table order, no newline. */
void sfk_json_layout(const sfk_sink *out, const sfc_layout *layout);
void sfk_json_stats(const sfk_sink *out, const sfc_stats *stats);
void sfk_json_parts(const sfk_sink *out, const sfc_layout *layout,
                    const sfc_parts *parts);
/* The i-th preset: name, spec, epoch_ms and time_end_ms (when its IDs run
 * out). SFC_INVALID_ARGUMENT past the last. */
sfc_status sfk_json_preset(const sfk_sink *out, size_t i, sfc_error *err);
/* {"error":{"kind":"…","message":"…"}} */
void sfk_json_error(const sfk_sink *out, const sfc_error *err);

/* ---- Node lists ----------------------------------------------------------
 * "worker=3" or "datacenter=1,worker=3": the node values of a generator as
 * one text (a command line's --node, a server setting). The values may be
 * anything sfc_node_value_set takes as text (a number, "auto", "host",
 * "env:NAME"). */

#define SFK_NODE_TEXT_MAX 512

typedef struct sfk_node_list {
  sfc_node_value values[SFC_MAX_FIELDS];
  size_t count;
  char text[SFK_NODE_TEXT_MAX]; /* the names and values point in here */
  const char *value_text[SFC_MAX_FIELDS];
} sfk_node_list;

/* Splits `text` into pairs. SFC_INVALID_ARGUMENT, with a message that starts
 * with `what` (the name the user gave the list: "--node",
 * "snowflake_c.node"), when an item is not NAME=VALUE or the list is too
 * long. */
sfc_status sfk_node_list_split(sfk_node_list *list, const char *text,
                               const char *what, sfc_error *err);

/* The split pairs as node values (sfc_node_value_set on each), which then
 * go to sfc_options_set_nodes. */
sfc_status sfk_node_list_values(sfk_node_list *list, sfc_error *err);

#endif
