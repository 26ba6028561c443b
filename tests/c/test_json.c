/*
 * test_json.c — the JSON reader of the C tests (json.h): valid documents,
 * escapes, exact big integers, and malformed documents that must fail at
 * the right line and column. Prints "N passed, N failed".
 */
#include "check.h"
#include "json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a NUL-terminated document; a failure is reported and gives NULL. */
static json_doc *parse(const char *text) {
  json_error err;
  json_doc *doc = json_parse(text, strlen(text), &err);
  CHECK(doc != NULL, "%s: %lu:%lu: %s", text, err.line, err.column,
        err.message);
  return doc;
}

static void test_structure(void) {
  json_doc *doc =
      parse(" {\"b\": [1, true, false, null, \"x\", [], {}],\n"
            "  \"a\": {\"z\": 1, \"y\": 2, \"x\": 3},\t\"\": 0}\r\n");
  if (!doc) return;
  const json_value *root = json_root(doc);
  CHECK(json_is(root, JSON_OBJECT), "root is %s", json_type_name(root->type));
  CHECK(json_count(root) == 3, "%zu members", json_count(root));
  CHECK(root->key == NULL, "the root has a key");

  const char *order[] = {"b", "a", ""};
  const json_value *m;
  size_t i = 0;
  JSON_FOR_EACH(m, root) {
    CHECK(i < 3 && strcmp(m->key, order[i]) == 0, "member %zu is \"%s\"", i,
          m->key);
    i++;
  }
  CHECK(i == 3, "%zu members iterated", i);

  const json_value *b = json_get(root, "b");
  json_type types[] = {JSON_NUMBER, JSON_TRUE,  JSON_FALSE, JSON_NULL,
                       JSON_STRING, JSON_ARRAY, JSON_OBJECT};
  CHECK(json_count(b) == 7, "b has %zu elements", json_count(b));
  for (i = 0; i < 7; i++) {
    const json_value *e = json_at(b, i);
    CHECK(json_is(e, types[i]), "b[%zu] is %s, not %s", i,
          e ? json_type_name(e->type) : "missing", json_type_name(types[i]));
    CHECK(e && e->key == NULL, "b[%zu] has a key", i);
  }
  CHECK(json_at(b, 7) == NULL, "b[7] exists");
  CHECK(json_count(json_at(b, 5)) == 0 && json_first(json_at(b, 5)) == NULL,
        "[] has elements");
  CHECK(json_count(json_at(b, 6)) == 0, "{} has members");

  const json_value *a = json_get(root, "a");
  const char *keys = "zyx";
  for (i = 0; i < 3; i++) {
    const json_value *e = json_at(a, i);
    int64_t n = 0;
    CHECK(e && e->key[0] == keys[i] && json_int64(e, &n) && n == (int64_t)i + 1,
          "a[%zu]", i);
  }
  int64_t zero = -1;
  CHECK(json_int64(json_get(root, ""), &zero) && zero == 0, "the empty key");

  /* Lookups of what is not there, or not an object, give NULL. */
  CHECK(json_get(root, "c") == NULL, "a member c");
  CHECK(json_get(root, "B") == NULL, "keys are case-sensitive");
  CHECK(json_get(b, "0") == NULL, "json_get on an array");
  CHECK(json_get(NULL, "b") == NULL, "json_get on NULL");
  CHECK(json_at(json_at(b, 4), 0) == NULL, "json_at on a string");
  CHECK(json_count(json_at(b, 4)) == 0, "json_count on a string");
  CHECK(json_count(NULL) == 0, "json_count on NULL");
  CHECK(json_string(json_at(b, 0), NULL) == NULL, "a number as a string");
  CHECK(!json_is(NULL, JSON_NULL), "NULL is a JSON null");
  json_free(doc);

  /* Any value is a document. */
  const char *scalars[] = {"42", "\"x\"", "null", " true ", "false", "-0.5"};
  json_type scalar_types[] = {JSON_NUMBER, JSON_STRING, JSON_NULL,
                              JSON_TRUE,   JSON_FALSE,  JSON_NUMBER};
  for (i = 0; i < 6; i++) {
    doc = parse(scalars[i]);
    CHECK(doc && json_is(json_root(doc), scalar_types[i]), "%s", scalars[i]);
    json_free(doc);
  }
  json_free(NULL);
}

/* The string of document `text` is `want` (`want_len` bytes). */
static void check_string(const char *text, const char *want, size_t want_len) {
  json_doc *doc = parse(text);
  if (!doc) return;
  size_t len = 0;
  const char *s = json_string(json_root(doc), &len);
  CHECK(s && len == want_len && memcmp(s, want, len) == 0 && s[len] == '\0',
        "%s: got %zu bytes \"%s\"", text, len, s ? s : "(not a string)");
  json_free(doc);
}

#define CHECK_STRING(text, want) check_string(text, want, sizeof want - 1)

static void test_strings(void) {
  CHECK_STRING("\"\"", "");
  CHECK_STRING("\"plain\"", "plain");
  CHECK_STRING("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"",
               "\" \\ / \b \f \n \r \t");
  CHECK_STRING("\"\\u0041\\u00e9\\u00E9\"", "A\xC3\xA9\xC3\xA9");
  CHECK_STRING("\"\\u20AC \\u0800 \\uFFFF\"",
               "\xE2\x82\xAC \xE0\xA0\x80 \xEF\xBF\xBF");
  /* Surrogate pairs: U+1F600 and U+10FFFF, the last code point. */
  CHECK_STRING("\"\\uD83D\\uDE00\"", "\xF0\x9F\x98\x80");
  CHECK_STRING("\"\\udbff\\udfff\"", "\xF4\x8F\xBF\xBF");
  /* Raw UTF-8 is kept as it is. */
  CHECK_STRING("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"",
               "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  /* A NUL is part of the string: the length counts what follows it. */
  CHECK_STRING("\"5\\u0000garbage\"", "5\0garbage");
  CHECK_STRING("\"\\u0000\"", "\0");
  CHECK_STRING("\"\\\\u0000\"", "\\u0000");

  json_doc *doc = parse("{\"a\\u0000b\": 1, \"a\": 2, \"\\u00e9\": 3}");
  if (doc) {
    const json_value *root = json_root(doc), *first = json_at(root, 0);
    int64_t n = 0;
    CHECK(first && first->key_len == 3 && memcmp(first->key, "a\0b", 3) == 0,
          "a key holding a NUL");
    CHECK(json_int64(json_get(root, "a"), &n) && n == 2,
          "\"a\" is not the key \"a\\u0000b\"");
    CHECK(json_int64(json_get(root, "\xC3\xA9"), &n) && n == 3,
          "an escaped key");
    json_free(doc);
  }
}

static void test_numbers(void) {
  json_doc *doc = parse("[18446744073709551615, 18446744073709551616,"
                        " 9223372036854775807, 9223372036854775808,"
                        " -9223372036854775808, -9223372036854775809,"
                        " 9007199254740993, -0, 0, 1.5, 1e3, -2.5E-3,"
                        " 1.50E+2, 1e400, 136.53333333333333]");
  if (!doc) return;
  const json_value *a = json_root(doc);
  uint64_t u = 0;
  int64_t i = 0;
  double d = 0;

  CHECK(json_uint64(json_at(a, 0), &u) && u == UINT64_MAX, "2^64 - 1");
  CHECK(!json_int64(json_at(a, 0), &i), "2^64 - 1 as int64");
  CHECK(!json_uint64(json_at(a, 1), &u), "2^64 as uint64");
  CHECK(!json_int64(json_at(a, 1), &i), "2^64 as int64");
  CHECK(json_double(json_at(a, 1), &d) && d == 18446744073709551616.0,
        "2^64 as double: %.17g", d);
  CHECK(json_int64(json_at(a, 2), &i) && i == INT64_MAX, "2^63 - 1");
  CHECK(!json_int64(json_at(a, 3), &i), "2^63 as int64");
  CHECK(json_uint64(json_at(a, 3), &u) && u == (uint64_t)INT64_MAX + 1,
        "2^63 as uint64");
  CHECK(json_int64(json_at(a, 4), &i) && i == INT64_MIN, "-2^63");
  CHECK(!json_uint64(json_at(a, 4), &u), "-2^63 as uint64");
  CHECK(!json_int64(json_at(a, 5), &i), "-2^63 - 1 as int64");
  /* 2^53 + 1: a double would give 2^53. */
  CHECK(json_int64(json_at(a, 6), &i) && i == 9007199254740993,
        "2^53 + 1: %" PRId64, i);
  CHECK(json_uint64(json_at(a, 6), &u) && u == 9007199254740993u,
        "2^53 + 1: %" PRIu64, u);
  CHECK(json_int64(json_at(a, 7), &i) && i == 0, "-0");
  CHECK(!json_uint64(json_at(a, 7), &u), "-0 as uint64");
  CHECK(json_uint64(json_at(a, 8), &u) && u == 0, "0");
  /* A fraction or an exponent is not an integer, whatever its value. */
  CHECK(!json_int64(json_at(a, 9), &i), "1.5 as int64");
  CHECK(json_double(json_at(a, 9), &d) && d == 1.5, "1.5: %.17g", d);
  CHECK(!json_int64(json_at(a, 10), &i) && !json_uint64(json_at(a, 10), &u),
        "1e3 as an integer");
  CHECK(json_double(json_at(a, 10), &d) && d == 1000.0, "1e3: %.17g", d);
  CHECK(json_double(json_at(a, 11), &d) && d == -2.5E-3, "-2.5E-3: %.17g", d);
  const json_value *text = json_at(a, 12);
  CHECK(text && strcmp(text->text, "1.50E+2") == 0 && text->len == 7,
        "the text as written: %s", text ? text->text : "?");
  CHECK(!json_double(json_at(a, 13), &d), "1e400 is not a finite double");
  CHECK(json_double(json_at(a, 14), &d) && d == 136.53333333333333,
        "136.53333333333333: %.17g", d);
  CHECK(json_double(json_at(a, 2), &d) && d == 9223372036854775807.0,
        "an integer as double");
  CHECK(!json_double(json_at(a, 15), &d) && !json_int64(NULL, &i) &&
            !json_uint64(NULL, &u),
        "past the end");
  json_free(doc);

  doc = parse("[\"1\", true]");
  if (doc) {
    CHECK(!json_int64(json_at(json_root(doc), 0), &i) &&
              !json_uint64(json_at(json_root(doc), 0), &u) &&
              !json_double(json_at(json_root(doc), 1), &d),
          "a string or a boolean as a number");
    json_free(doc);
  }
}

/* Document `text` (`len` bytes) fails at line:column with a message that
 * holds `want`. */
static void check_bad_n(const char *text, size_t len, unsigned long line,
                        unsigned long column, const char *want) {
  json_error err;
  memset(&err, 0, sizeof err);
  json_doc *doc = json_parse(text, len, &err);
  CHECK(doc == NULL, "%s: parsed", text);
  json_free(doc);
  CHECK(err.line == line && err.column == column && strstr(err.message, want),
        "%s: wanted %lu:%lu: ...%s...; got %lu:%lu: %s", text, line, column,
        want, err.line, err.column, err.message);
}

static void check_bad(const char *text, unsigned long line,
                      unsigned long column, const char *want) {
  check_bad_n(text, strlen(text), line, column, want);
}

static void test_malformed(void) {
  check_bad("", 1, 1, "expected a value; found the end of the document");
  check_bad("  \n ", 2, 2, "expected a value; found the end");
  check_bad("[1,2", 1, 5, "expected ',' or ']' after an array element");
  check_bad("[1 2]", 1, 4, "expected ',' or ']' after an array element");
  check_bad("[1,]", 1, 4, "expected a value; found ']'");
  check_bad("{\"a\":1,}", 1, 8, "expected a key (a string); found '}'");
  check_bad("{a:1}", 1, 2, "expected a key (a string); found 'a'");
  check_bad("{\"a\" 1}", 1, 6, "expected ':' after the key \"a\"; found '1'");
  check_bad("{\"a\":1 \"b\":2}", 1, 8, "expected ',' or '}' after an object");
  check_bad("{\"a\":1,\"a\":2}", 1, 8, "duplicate key \"a\"");
  check_bad("{\"a\":", 1, 6, "expected a value; found the end");
  check_bad("[01]", 1, 2, "cannot start with 0 followed by a digit");
  check_bad("[1.]", 1, 4, "expected a digit after the decimal point");
  check_bad("[.5]", 1, 2, "expected a value; found '.'");
  check_bad("[1e]", 1, 4, "expected a digit in the exponent");
  check_bad("[1e+]", 1, 5, "expected a digit in the exponent");
  check_bad("[-]", 1, 3, "expected a digit in the number; found ']'");
  check_bad("[+1]", 1, 2, "expected a value; found '+'");
  check_bad("[NaN]", 1, 2, "expected a value; found 'N'");
  check_bad("[tru]", 1, 2, "invalid literal (expected true)");
  check_bad("nul", 1, 1, "invalid literal (expected null)");
  check_bad("[True]", 1, 2, "expected a value; found 'T'");
  check_bad("\"abc", 1, 1, "unterminated string");
  check_bad("[\"abc\\\"]", 1, 2, "unterminated string");
  check_bad("\"\\", 1, 1, "unterminated string");
  check_bad("\"a\\qb\"", 1, 3, "invalid escape \\q");
  check_bad("\"a\\'\"", 1, 3, "invalid escape \\'");
  check_bad("\"\\u12g4\"", 1, 2, "four hex digits must follow \\u");
  check_bad("\"\\u12\"", 1, 2, "four hex digits must follow \\u");
  check_bad("\"ab\\uD800\"", 1, 4, "\\uD800 is a high surrogate");
  check_bad("\"\\uD800\\u0041\"", 1, 2, "with no low surrogate");
  check_bad("\"\\uD800\\n\"", 1, 2, "with no low surrogate");
  check_bad("\"\\uDBFF\\uDBFF\"", 1, 2, "with no low surrogate");
  check_bad("\"\\uDC00\"", 1, 2, "\\uDC00 is a low surrogate");
  check_bad("\"a\nb\"", 1, 3, "control character 0x0A in a string");
  check_bad("\"a\tb\"", 1, 3, "control character 0x09");
  check_bad("\"\xC3\x28\"", 1, 2, "invalid UTF-8 byte 0xC3");
  check_bad("\"\xC0\xAF\"", 1, 2, "invalid UTF-8 byte 0xC0");     /* overlong */
  check_bad("\"\xE0\x80\xAF\"", 1, 2, "invalid UTF-8 byte 0xE0"); /* overlong */
  check_bad("\"\xED\xA0\x80\"", 1, 2,
            "invalid UTF-8 byte 0xED"); /* surrogate */
  check_bad("\"\xF4\x90\x80\x80\"", 1, 2,
            "invalid UTF-8 byte 0xF4");                       /* > U+10FFFF */
  check_bad("\"\xE2\x82\"", 1, 2, "invalid UTF-8 byte 0xE2"); /* cut short */
  check_bad("\"\x80\"", 1, 2, "invalid UTF-8 byte 0x80");
  check_bad("[\xC3\xA9]", 1, 2, "expected a value; found byte 0xC3");
  check_bad("[1] x", 1, 5, "unexpected 'x' after the document");
  check_bad("{} {}", 1, 4, "unexpected '{' after the document");
  check_bad("\xEF\xBB\xBF{}", 1, 1, "expected a value; found byte 0xEF");
  /* Lines count from 1 and columns in characters, not bytes. */
  check_bad("{\n  \"a\": [1,\n  2 3]\n}", 3, 5, "expected ',' or ']'");
  check_bad("[\"\xC3\xA9\xE2\x82\xAC\", x]", 1, 8, "found 'x'");
  check_bad("\r\n\n  [\"\\u00e9\", \"\\x\"]", 3, 15, "invalid escape \\x");
  /* A NUL byte outside a string is no end of the document. */
  check_bad_n("[1,\0 2]", 7, 1, 4, "expected a value; found byte 0x00");
  check_bad_n("[1]\0", 4, 1, 4, "unexpected byte 0x00 after the document");
  check_bad_n("\"a\0b\"", 5, 1, 3, "control character 0x00");

  /* Nesting: JSON_MAX_DEPTH arrays are fine, one more is not. */
  char deep[2 * (JSON_MAX_DEPTH + 1) + 1];
  memset(deep, '[', JSON_MAX_DEPTH);
  memset(deep + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
  deep[2 * JSON_MAX_DEPTH] = '\0';
  json_doc *doc = parse(deep);
  json_free(doc);
  memset(deep, '[', JSON_MAX_DEPTH + 1);
  memset(deep + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
  deep[2 * (JSON_MAX_DEPTH + 1)] = '\0';
  check_bad(deep, 1, JSON_MAX_DEPTH + 1, "nested deeper than");

  /* Without a json_error, a failure is still NULL. */
  CHECK(json_parse("[", 1, NULL) == NULL, "[ without an error");
}

static void test_files(void) {
  json_error err;
  json_doc *doc = json_parse_file("test_json.no-such-file.json", &err);
  CHECK(doc == NULL && err.line == 0 && strstr(err.message, "cannot open"),
        "a missing file: %s", err.message);
  json_free(doc);

  /* A file larger than the first read, which the tests write themselves. */
  const char *path = "test_json.tmp.json";
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL, "cannot write %s", path);
  if (!f) return;
  fputs("[", f);
  for (int i = 0; i < 20000; i++)
    fprintf(f, "%s{\"i\": %d, \"s\": \"\\u00e9\\u0000\"}", i ? ",\n" : "", i);
  fputs("]\n", f);
  fclose(f);
  doc = json_parse_file(path, &err);
  CHECK(doc != NULL, "%s: %lu:%lu: %s", path, err.line, err.column,
        err.message);
  if (doc) {
    const json_value *a = json_root(doc), *last = json_at(a, 19999);
    int64_t n = 0;
    size_t len = 0;
    const char *s = json_string(json_get(last, "s"), &len);
    CHECK(json_count(a) == 20000, "%zu elements", json_count(a));
    CHECK(json_int64(json_get(last, "i"), &n) && n == 19999, "the last i");
    CHECK(s && len == 3 && memcmp(s, "\xC3\xA9", 3) == 0, "the last s");
    json_free(doc);
  }

  f = fopen(path, "wb");
  CHECK(f != NULL, "cannot write %s", path);
  if (!f) return;
  fputs("[\n  {\"a\": 1},\n  {\"a\": 2,}\n]\n", f);
  fclose(f);
  doc = json_parse_file(path, &err);
  CHECK(doc == NULL && err.line == 3 && err.column == 11 &&
            strstr(err.message, "expected a key"),
        "a malformed file: %lu:%lu: %s", err.line, err.column, err.message);
  json_free(doc);
  remove(path);
}

int main(void) {
  test_structure();
  test_strings();
  test_numbers();
  test_malformed();
  test_files();
  return check_summary();
}
