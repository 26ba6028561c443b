/*
 * json.h — the JSON reader of the C tests (RFC 8259): parses a whole
 * document into a tree that lives until json_free.
 *
 * - Objects keep their members in the document's order; a key given twice
 *   in one object is an error (readers in other languages disagree on
 *   which one counts).
 * - Strings are UTF-8, escapes decoded (\u escapes and surrogate pairs
 *   included); a string may hold NUL bytes ("\u0000"): `len` is its real
 *   length, and the text is NUL-terminated besides.
 * - Numbers keep their text as written; json_int64 and json_uint64 read an
 *   integer exactly (all of 0 … 2^64 − 1), json_double any number.
 * - The input must be UTF-8; a malformed document gives NULL and a
 *   json_error with the line and column (both from 1, the column counting
 *   characters) of the first problem.
 *
 * No global state: documents may be parsed and read on several threads.
 */
#ifndef SFC_TEST_JSON_H
#define SFC_TEST_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum json_type {
  JSON_NULL,
  JSON_FALSE,
  JSON_TRUE,
  JSON_NUMBER,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT
} json_type;

typedef struct json_value json_value;
struct json_value {
  json_type type;
  /* A member of an object: its key (NUL-terminated, may hold NULs);
   * NULL for an array element or the document itself. */
  const char *key;
  size_t key_len;
  /* A string: its bytes; a number: its text as written. NUL-terminated;
   * NULL for the other types. */
  const char *text;
  size_t len;
  /* An array or object: its element count and first element. */
  size_t count;
  const json_value *first;
  /* The next element of the enclosing array or object, or NULL. */
  const json_value *next;
};

/* Deeper nesting is an error (the parser recurses). */
#define JSON_MAX_DEPTH 256

typedef struct json_error {
  unsigned long line;   /* 0 when the error has no position (reading) */
  unsigned long column; /* in characters */
  char message[256];
} json_error;

typedef struct json_doc json_doc;

/* Parses `len` bytes of `text` (which need not end in a NUL). NULL on a
 * malformed document or no memory, with *err filled in (err may be NULL). */
json_doc *json_parse(const char *text, size_t len, json_error *err);

/* Reads the file at `path` whole and parses it; a file that cannot be read
 * gives NULL with line 0 and the system's reason. */
json_doc *json_parse_file(const char *path, json_error *err);

void json_free(json_doc *doc);

/* The top-level value: never NULL for a parsed document. */
const json_value *json_root(const json_doc *doc);

/* 1 if `v` is not NULL and of type `t`. */
int json_is(const json_value *v, json_type t);

/* The member `key` of object `obj` (compared byte for byte up to the key's
 * NUL); NULL if `obj` is NULL, not an object, or has no such member. */
const json_value *json_get(const json_value *obj, const char *key);

/* Element `i` of an array or object; NULL past the end or for any other
 * value (or NULL). */
const json_value *json_at(const json_value *v, size_t i);

/* The element count of an array or object; 0 for anything else. */
size_t json_count(const json_value *v);

/* The first element of an array or object, NULL for anything else. */
const json_value *json_first(const json_value *v);

/* Every element of array or object `parent`; none if it is neither. */
#define JSON_FOR_EACH(v, parent)                                               \
  for ((v) = json_first(parent); (v); (v) = (v)->next)

/* The text of a string (and its length when `len` is not NULL); NULL if
 * `v` is not a string. */
const char *json_string(const json_value *v, size_t *len);

/* A number written as an integer (no fraction, no exponent) that fits:
 * 1 and the exact value in *out; 0 otherwise (out untouched). */
int json_int64(const json_value *v, int64_t *out);
int json_uint64(const json_value *v, uint64_t *out);
/* The same reading of integer text ("-12", "18446744073709551615"), as the
 * vectors also carry it in strings: 1 and *out, or 0. */
int json_text_i64(const char *s, int64_t *out);
int json_text_u64(const char *s, uint64_t *out);

/* Any number whose value is finite as a double (the nearest double, as
 * strtod gives it, whatever the locale): 1 and *out; 0 otherwise. */
int json_double(const json_value *v, double *out);

/* "null", "false", "true", "number", "string", "array" or "object". */
const char *json_type_name(json_type t);

#endif
