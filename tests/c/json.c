/*
 * json.c — the JSON reader of the C tests (json.h).
 *
 * A recursive-descent parser over the whole text; the tree, its strings and
 * its numbers' text live in blocks of one arena per document, freed
 * together by json_free. Nothing is global.
 */
#include "json.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The arena                                                          */
/* ------------------------------------------------------------------ */

#define BLOCK_SIZE 65536

/* What an allocation is aligned for. */
typedef union align {
  long long i;
  long double d;
  void *p;
  void (*f)(void);
} align;

static size_t aligned(size_t n) {
  return (n + _Alignof(align) - 1) / _Alignof(align) * _Alignof(align);
}

/* A block: this header, then `cap` bytes from DATA(b). */
typedef struct block {
  struct block *next;
  size_t used, cap;
} block;

#define DATA(b) ((char *)(b) + aligned(sizeof(block)))

struct json_doc {
  block *blocks; /* the block allocations come from, then the older ones */
  const json_value *root;
};

/* `n` bytes aligned for any type, or NULL when memory runs out. */
static void *arena_alloc(json_doc *doc, size_t n) {
  n = aligned(n);
  block *b = doc->blocks;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > BLOCK_SIZE / 4 ? n : BLOCK_SIZE;
    block *fresh = malloc(aligned(sizeof(block)) + cap);
    if (!fresh) return NULL;
    fresh->used = 0;
    fresh->cap = cap;
    if (b && cap != BLOCK_SIZE) {
      /* A large allocation of its own: the current block stays current. */
      fresh->next = b->next;
      b->next = fresh;
    } else {
      fresh->next = b;
      doc->blocks = fresh;
    }
    b = fresh;
  }
  void *p = DATA(b) + b->used;
  b->used += n;
  return p;
}

void json_free(json_doc *doc) {
  if (!doc) return;
  for (block *b = doc->blocks, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  free(doc);
}

/* ------------------------------------------------------------------ */
/* Errors                                                             */
/* ------------------------------------------------------------------ */

typedef struct parser {
  const char *start, *p, *end;
  json_doc *doc;
  json_error *err;
  int failed;
} parser;

/* Records the first error, at `at`, with its line and column; returns 0. */
static int fail_at(parser *ps, const char *at, const char *fmt, ...) {
  if (ps->failed) return 0;
  ps->failed = 1;
  unsigned long line = 1, column = 1;
  for (const char *s = ps->start; s < at; s++) {
    if (*s == '\n') {
      line++;
      column = 1;
    } else if (((unsigned char)*s & 0xC0) != 0x80) {
      column++; /* a character's first byte */
    }
  }
  ps->err->line = line;
  ps->err->column = column;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ps->err->message, sizeof ps->err->message, fmt, ap);
  va_end(ap);
  return 0;
}

/* What is at `at`, for "…; found X". */
static const char *found(const parser *ps, const char *at, char buf[32]) {
  if (at >= ps->end) return "the end of the document";
  unsigned char c = (unsigned char)*at;
  if (c >= 0x20 && c < 0x7F)
    snprintf(buf, 32, "'%c'", c);
  else
    snprintf(buf, 32, "byte 0x%02X", c);
  return buf;
}

/* ------------------------------------------------------------------ */
/* Parsing                                                            */
/* ------------------------------------------------------------------ */

static void skip_space(parser *ps) {
  while (ps->p < ps->end &&
         (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static int is_digit(const parser *ps, const char *at) {
  return at < ps->end && *at >= '0' && *at <= '9';
}

static json_value *new_value(parser *ps, json_type type) {
  json_value *v = arena_alloc(ps->doc, sizeof *v);
  if (!v) {
    fail_at(ps, ps->p, "out of memory");
    return NULL;
  }
  memset(v, 0, sizeof *v);
  v->type = type;
  return v;
}

/* A copy of `n` bytes at `s` in the arena, NUL-terminated. */
static char *arena_text(parser *ps, const char *s, size_t n) {
  char *t = arena_alloc(ps->doc, n + 1);
  if (!t) {
    fail_at(ps, s, "out of memory");
    return NULL;
  }
  memcpy(t, s, n);
  t[n] = '\0';
  return t;
}

/* Four hex digits at `s` (stopping at the first other byte, so never past
 * the string's closing quote): 1 and the value, or 0. */
static int hex4(const char *s, unsigned long *out) {
  unsigned long v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9')
      d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = (unsigned)(c - 'A' + 10);
    else
      return 0;
    v = v << 4 | d;
  }
  *out = v;
  return 1;
}

/* The length of the well-formed UTF-8 character at `s` (before `end`), or
 * 0: no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_char(const unsigned char *s, const unsigned char *end) {
  unsigned long cp, min;
  size_t n;
  if (s[0] >= 0xC2 && s[0] <= 0xDF) {
    n = 2, cp = s[0] & 0x1Fu, min = 0x80;
  } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
    n = 3, cp = s[0] & 0x0Fu, min = 0x800;
  } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
    n = 4, cp = s[0] & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if ((size_t)(end - s) < n) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

static char *put_utf8(char *o, unsigned long cp) {
  if (cp < 0x80) {
    *o++ = (char)cp;
  } else if (cp < 0x800) {
    *o++ = (char)(0xC0 | cp >> 6);
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *o++ = (char)(0xE0 | cp >> 12);
    *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else {
    *o++ = (char)(0xF0 | cp >> 18);
    *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
    *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  }
  return o;
}

/* The string at ps->p (its opening quote), decoded into the arena. */
static int parse_string(parser *ps, const char **text, size_t *len) {
  const char *open = ps->p, *close = open + 1;
  while (close < ps->end && *close != '"')
    close += *close == '\\' && ps->end - close > 1 ? 2 : 1;
  if (close == ps->end) return fail_at(ps, open, "unterminated string");
  /* Decoding never lengthens: an escape is longer than what it stands for. */
  char *buf = arena_alloc(ps->doc, (size_t)(close - open));
  if (!buf) return fail_at(ps, open, "out of memory");
  char *o = buf;
  const char *q = open + 1;
  while (q < close) {
    unsigned char c = (unsigned char)*q;
    if (c == '\\') {
      const char *esc = q;
      switch (q[1]) {
      case '"':
      case '\\':
      case '/':
        *o++ = q[1];
        break;
      case 'b':
        *o++ = '\b';
        break;
      case 'f':
        *o++ = '\f';
        break;
      case 'n':
        *o++ = '\n';
        break;
      case 'r':
        *o++ = '\r';
        break;
      case 't':
        *o++ = '\t';
        break;
      case 'u': {
        unsigned long cp = 0, low = 0;
        if (!hex4(q + 2, &cp))
          return fail_at(ps, esc,
                         "invalid \\u escape: four hex digits must "
                         "follow \\u");
        q += 4;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
          return fail_at(ps, esc,
                         "invalid \\u escape: \\u%04lX is a low surrogate "
                         "with no high surrogate before it",
                         cp);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (q[2] != '\\' || q[3] != 'u' || !hex4(q + 4, &low) ||
              low < 0xDC00 || low > 0xDFFF)
            return fail_at(ps, esc,
                           "invalid \\u escape: \\u%04lX is a high surrogate "
                           "with no low surrogate (\\uDC00 to \\uDFFF) after "
                           "it",
                           cp);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          q += 6;
        }
        o = put_utf8(o, cp);
        break;
      }
      default: {
        char what[32];
        if ((unsigned char)q[1] >= 0x20 && (unsigned char)q[1] < 0x7F)
          snprintf(what, sizeof what, "\\%c", q[1]);
        else
          snprintf(what, sizeof what, "\\ followed by byte 0x%02X",
                   (unsigned char)q[1]);
        return fail_at(ps, esc, "invalid escape %s", what);
      }
      }
      q += 2;
    } else if (c < 0x20) {
      return fail_at(ps, q,
                     "control character 0x%02X in a string (it must be "
                     "written as an escape)",
                     c);
    } else if (c < 0x80) {
      *o++ = (char)c;
      q++;
    } else {
      size_t n =
          utf8_char((const unsigned char *)q, (const unsigned char *)close);
      if (!n) return fail_at(ps, q, "invalid UTF-8 byte 0x%02X", c);
      memcpy(o, q, n);
      o += n;
      q += n;
    }
  }
  *o = '\0';
  *text = buf;
  *len = (size_t)(o - buf);
  ps->p = close + 1;
  return 1;
}

static json_value *parse_number(parser *ps) {
  const char *s = ps->p, *p = s;
  if (*p == '-') p++;
  if (!is_digit(ps, p)) {
    char buf[32];
    fail_at(ps, p, "expected a digit in the number; found %s",
            found(ps, p, buf));
    return NULL;
  }
  if (*p == '0') {
    p++;
    if (is_digit(ps, p)) {
      fail_at(ps, s, "a number cannot start with 0 followed by a digit");
      return NULL;
    }
  } else {
    while (is_digit(ps, p))
      p++;
  }
  if (p < ps->end && *p == '.') {
    p++;
    if (!is_digit(ps, p)) {
      char buf[32];
      fail_at(ps, p, "expected a digit after the decimal point; found %s",
              found(ps, p, buf));
      return NULL;
    }
    while (is_digit(ps, p))
      p++;
  }
  if (p < ps->end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < ps->end && (*p == '+' || *p == '-')) p++;
    if (!is_digit(ps, p)) {
      char buf[32];
      fail_at(ps, p, "expected a digit in the exponent; found %s",
              found(ps, p, buf));
      return NULL;
    }
    while (is_digit(ps, p))
      p++;
  }
  json_value *v = new_value(ps, JSON_NUMBER);
  if (!v || !(v->text = arena_text(ps, s, (size_t)(p - s)))) return NULL;
  v->len = (size_t)(p - s);
  ps->p = p;
  return v;
}

static json_value *parse_value(parser *ps, int depth);

/* Appends `v` to `parent`, whose last element is *tail. */
static void append(json_value *parent, json_value **tail, json_value *v) {
  if (*tail)
    (*tail)->next = v;
  else
    parent->first = v;
  *tail = v;
  parent->count++;
}

static json_value *parse_array(parser *ps, int depth) {
  json_value *a = new_value(ps, JSON_ARRAY), *tail = NULL;
  if (!a) return NULL;
  ps->p++;
  skip_space(ps);
  if (ps->p < ps->end && *ps->p == ']') {
    ps->p++;
    return a;
  }
  for (;;) {
    json_value *v = parse_value(ps, depth + 1);
    if (!v) return NULL;
    append(a, &tail, v);
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
    } else if (ps->p < ps->end && *ps->p == ']') {
      ps->p++;
      return a;
    } else {
      char buf[32];
      fail_at(ps, ps->p, "expected ',' or ']' after an array element; found %s",
              found(ps, ps->p, buf));
      return NULL;
    }
  }
}

static json_value *parse_object(parser *ps, int depth) {
  json_value *obj = new_value(ps, JSON_OBJECT), *tail = NULL;
  if (!obj) return NULL;
  ps->p++;
  skip_space(ps);
  if (ps->p < ps->end && *ps->p == '}') {
    ps->p++;
    return obj;
  }
  for (;;) {
    char buf[32];
    skip_space(ps);
    if (ps->p >= ps->end || *ps->p != '"') {
      fail_at(ps, ps->p, "expected a key (a string); found %s",
              found(ps, ps->p, buf));
      return NULL;
    }
    const char *key_at = ps->p, *key;
    size_t key_len;
    if (!parse_string(ps, &key, &key_len)) return NULL;
    for (const json_value *m = obj->first; m; m = m->next) {
      if (m->key_len == key_len && memcmp(m->key, key, key_len) == 0) {
        fail_at(ps, key_at, "duplicate key \"%.*s\" in an object",
                key_len > 80 ? 80 : (int)key_len, key);
        return NULL;
      }
    }
    skip_space(ps);
    if (ps->p >= ps->end || *ps->p != ':') {
      fail_at(ps, ps->p, "expected ':' after the key \"%.*s\"; found %s",
              key_len > 80 ? 80 : (int)key_len, key, found(ps, ps->p, buf));
      return NULL;
    }
    ps->p++;
    json_value *v = parse_value(ps, depth + 1);
    if (!v) return NULL;
    v->key = key;
    v->key_len = key_len;
    append(obj, &tail, v);
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
    } else if (ps->p < ps->end && *ps->p == '}') {
      ps->p++;
      return obj;
    } else {
      fail_at(ps, ps->p, "expected ',' or '}' after an object member; found %s",
              found(ps, ps->p, buf));
      return NULL;
    }
  }
}

static json_value *parse_literal(parser *ps, const char *word, json_type t) {
  size_t n = strlen(word);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) {
    fail_at(ps, ps->p, "invalid literal (expected %s)", word);
    return NULL;
  }
  json_value *v = new_value(ps, t);
  if (v) ps->p += n;
  return v;
}

static json_value *parse_value(parser *ps, int depth) {
  char buf[32];
  skip_space(ps);
  if (ps->p >= ps->end) {
    fail_at(ps, ps->p, "expected a value; found %s", found(ps, ps->p, buf));
    return NULL;
  }
  switch (*ps->p) {
  case '{':
  case '[':
    if (depth >= JSON_MAX_DEPTH) {
      fail_at(ps, ps->p, "arrays and objects nested deeper than %d",
              JSON_MAX_DEPTH);
      return NULL;
    }
    return *ps->p == '{' ? parse_object(ps, depth) : parse_array(ps, depth);
  case '"': {
    json_value *v = new_value(ps, JSON_STRING);
    if (!v || !parse_string(ps, &v->text, &v->len)) return NULL;
    return v;
  }
  case 't':
    return parse_literal(ps, "true", JSON_TRUE);
  case 'f':
    return parse_literal(ps, "false", JSON_FALSE);
  case 'n':
    return parse_literal(ps, "null", JSON_NULL);
  default:
    if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
      return parse_number(ps);
    fail_at(ps, ps->p, "expected a value; found %s", found(ps, ps->p, buf));
    return NULL;
  }
}

json_doc *json_parse(const char *text, size_t len, json_error *err) {
  json_error local;
  parser ps;
  ps.start = ps.p = text;
  ps.end = text + len;
  ps.doc = NULL;
  ps.err = err ? err : &local;
  ps.failed = 0;
  ps.err->line = ps.err->column = 0;
  ps.err->message[0] = '\0';
  if (!(ps.doc = calloc(1, sizeof *ps.doc))) {
    snprintf(ps.err->message, sizeof ps.err->message, "out of memory");
    return NULL;
  }
  json_value *root = parse_value(&ps, 0);
  if (root) {
    skip_space(&ps);
    if (ps.p < ps.end) {
      char buf[32];
      fail_at(&ps, ps.p, "unexpected %s after the document",
              found(&ps, ps.p, buf));
    }
  }
  if (ps.failed) {
    json_free(ps.doc);
    return NULL;
  }
  ps.doc->root = root;
  return ps.doc;
}

json_doc *json_parse_file(const char *path, json_error *err) {
  json_error local;
  if (!err) err = &local;
  FILE *f = fopen(path, "rb");
  if (!f) {
    int e = errno;
    err->line = err->column = 0;
    snprintf(err->message, sizeof err->message, "cannot open %s: %s", path,
             strerror(e));
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  int e = 0;
  while (buf) {
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
    if (len == cap) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  if (buf && ferror(f)) {
    e = errno;
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (!buf) {
    err->line = err->column = 0;
    snprintf(err->message, sizeof err->message, "cannot read %s: %s", path,
             e ? strerror(e) : "out of memory");
    return NULL;
  }
  json_doc *doc = json_parse(buf, len, err);
  free(buf);
  return doc;
}

/* ------------------------------------------------------------------ */
/* Reading the tree                                                   */
/* ------------------------------------------------------------------ */

const json_value *json_root(const json_doc *doc) {
  return doc->root;
}

int json_is(const json_value *v, json_type t) {
  return v && v->type == t;
}

const json_value *json_first(const json_value *v) {
  return json_is(v, JSON_ARRAY) || json_is(v, JSON_OBJECT) ? v->first : NULL;
}

size_t json_count(const json_value *v) {
  return json_first(v) ? v->count : 0;
}

const json_value *json_get(const json_value *obj, const char *key) {
  if (!json_is(obj, JSON_OBJECT)) return NULL;
  size_t n = strlen(key);
  for (const json_value *m = obj->first; m; m = m->next)
    if (m->key_len == n && memcmp(m->key, key, n) == 0) return m;
  return NULL;
}

const json_value *json_at(const json_value *v, size_t i) {
  const json_value *e = json_first(v);
  while (e && i--)
    e = e->next;
  return e;
}

const char *json_string(const json_value *v, size_t *len) {
  if (!json_is(v, JSON_STRING)) return NULL;
  if (len) *len = v->len;
  return v->text;
}

int json_text_u64(const char *s, uint64_t *out) {
  uint64_t v = 0;
  if (!s || !*s) return 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return 0;
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) return 0;
    v = v * 10 + d;
  }
  *out = v;
  return 1;
}

int json_text_i64(const char *s, int64_t *out) {
  uint64_t mag;
  if (!s) return 0;
  int neg = s[0] == '-';
  if (!json_text_u64(s + neg, &mag)) return 0;
  if (mag > (uint64_t)INT64_MAX + (uint64_t)neg) return 0;
  *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return 1;
}

int json_uint64(const json_value *v, uint64_t *out) {
  return json_is(v, JSON_NUMBER) && v->text[0] != '-' &&
         json_text_u64(v->text, out);
}

int json_int64(const json_value *v, int64_t *out) {
  return json_is(v, JSON_NUMBER) && json_text_i64(v->text, out);
}

int json_double(const json_value *v, double *out) {
  if (!json_is(v, JSON_NUMBER)) return 0;
  /* strtod reads the locale's decimal point: the text gets that one. */
  const char *point = localeconv()->decimal_point;
  size_t plen = point && *point ? strlen(point) : 1;
  char small[128], *copy = small;
  size_t need = v->len * plen + 1;
  if (need > sizeof small && !(copy = malloc(need))) return 0;
  char *o = copy;
  for (const char *s = v->text; *s; s++) {
    if (*s == '.' && point && *point) {
      memcpy(o, point, plen);
      o += plen;
    } else {
      *o++ = *s;
    }
  }
  *o = '\0';
  char *end;
  double d = strtod(copy, &end);
  int ok = end == o && isfinite(d);
  if (copy != small) free(copy);
  if (ok) *out = d;
  return ok;
}

const char *json_type_name(json_type t) {
  switch (t) {
  case JSON_NULL:
    return "null";
  case JSON_FALSE:
    return "false";
  case JSON_TRUE:
    return "true";
  case JSON_NUMBER:
    return "number";
  case JSON_STRING:
    return "string";
  case JSON_ARRAY:
    return "array";
  case JSON_OBJECT:
    return "object";
  }
  return "?";
}
