/* The string forms of an ID: dec, hex, base32, base36, base58, base62. */
#include "internal.h"

#include <string.h>

typedef struct encoding_info {
  const char *name;
  const char *digits;   /* in ASCII order: fixed strings sort as the IDs */
  const char *max;      /* 2^64 - 1, fixed width */
  const char *alphabet; /* for messages */
  unsigned base, width;
} encoding_info;

static const encoding_info ENCODINGS[SFC_ENCODING_COUNT] = {
    {"dec", "0123456789", "18446744073709551615", "0-9", 10, 20},
    {"hex", "0123456789abcdef", "ffffffffffffffff", "0-9a-f, any case", 16, 16},
    {"base32", "0123456789ABCDEFGHJKMNPQRSTVWXYZ", "FZZZZZZZZZZZZ",
     "Crockford's 0-9A-Z without I, L, O, U; any case, I and L read as 1, O "
     "as 0",
     32, 13},
    {"base36", "0123456789abcdefghijklmnopqrstuvwxyz", "3w5e11264sgsf",
     "0-9a-z, any case", 36, 13},
    {"base58", "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
     "jpXCZedGfVQ", "Bitcoin's 1-9A-Za-z without I, O, l", 58, 11},
    {"base62", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
     "LygHa16AHYF", "0-9A-Za-z", 62, 11},
};

/* Letters A..Z (either case for Crockford) to their value, -1 if none. */
static const signed char CROCKFORD[26] = {10, 11, 12, 13, 14, 15, 16, 17, 1,
                                          18, 19, 1,  20, 21, 0,  22, 23, 24,
                                          25, 26, -1, 27, 28, 29, 30, 31};
static const signed char B58_UPPER[26] = {9,  10, 11, 12, 13, 14, 15, 16, -1,
                                          17, 18, 19, 20, 21, -1, 22, 23, 24,
                                          25, 26, 27, 28, 29, 30, 31, 32};
static const signed char B58_LOWER[26] = {33, 34, 35, 36, 37, 38, 39, 40, 41,
                                          42, 43, -1, 44, 45, 46, 47, 48, 49,
                                          50, 51, 52, 53, 54, 55, 56, 57};

/* The value of character c in the encoding, or -1. `e` is a constant at
 * every call, so each parser is compiled for its own alphabet. */
static inline int digit_value(sfc_encoding e, unsigned char c) {
  bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
  if (e == SFC_ENCODING_BASE58) {
    if (c >= '1' && c <= '9') return c - '1';
    if (upper) return B58_UPPER[c - 'A'];
    return lower ? B58_LOWER[c - 'a'] : -1;
  }
  if (c >= '0' && c <= '9') return c - '0';
  switch (e) {
  case SFC_ENCODING_HEX:
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  case SFC_ENCODING_BASE32:
    if (upper) return CROCKFORD[c - 'A'];
    return lower ? CROCKFORD[c - 'a'] : -1;
  case SFC_ENCODING_BASE36:
    if (upper) return c - 'A' + 10;
    return lower ? c - 'a' + 10 : -1;
  case SFC_ENCODING_BASE62:
    if (upper) return c - 'A' + 10;
    return lower ? c - 'a' + 36 : -1;
  default:
    return -1;
  }
}

const char *sfc_encoding_name(sfc_encoding encoding) {
  return (unsigned)encoding < SFC_ENCODING_COUNT ? ENCODINGS[encoding].name
                                                 : NULL;
}

sfc_status sfc_encoding_by_name(const char *name, size_t len, sfc_encoding *out,
                                sfc_error *err) {
  for (unsigned i = 0; name && i < SFC_ENCODING_COUNT; i++) {
    if (strlen(ENCODINGS[i].name) == len &&
        memcmp(ENCODINGS[i].name, name, len) == 0) {
      *out = (sfc_encoding)i;
      return SFC_OK;
    }
  }
  return sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "unknown encoding '%.*s': use dec, hex, base32, base36, "
                  "base58 or base62",
                  name ? (int)(len < 40 ? len : 40) : 6,
                  name ? name : "(null)");
}

/* Digits from the right; `base` is a constant at every call, so the
 * division compiles to a multiplication or a shift. */
static inline size_t format_in(uint64_t v, unsigned base, const char *digits,
                               unsigned width, bool shortest, char *buf) {
  char tmp[SFC_ENCODED_MAX];
  char *end = tmp + sizeof tmp, *p = end;
  do {
    *--p = digits[v % base];
    v /= base;
  } while (v);
  if (!shortest)
    while ((size_t)(end - p) < width)
      *--p = digits[0];
  size_t n = (size_t)(end - p);
  memcpy(buf, p, n);
  buf[n] = '\0';
  return n;
}

size_t sfc_id_format(uint64_t id, sfc_encoding encoding, unsigned flags,
                     char *buf, size_t cap) {
  if ((unsigned)encoding >= SFC_ENCODING_COUNT || !buf) return 0;
  const encoding_info *e = &ENCODINGS[encoding];
  bool shortest = (flags & SFC_FORMAT_SHORTEST) != 0;
  if (cap < SFC_ENCODED_MAX) {
    /* Too small for the worst case: measure this ID first. */
    size_t need = 1;
    for (uint64_t v = id / e->base; v; v /= e->base)
      need++;
    if (!shortest && need < e->width) need = e->width;
    if (cap <= need) return 0;
  }
  switch (encoding) {
  case SFC_ENCODING_DEC:
    return format_in(id, 10, e->digits, e->width, shortest, buf);
  case SFC_ENCODING_HEX:
    return format_in(id, 16, e->digits, e->width, shortest, buf);
  case SFC_ENCODING_BASE32:
    return format_in(id, 32, e->digits, e->width, shortest, buf);
  case SFC_ENCODING_BASE36:
    return format_in(id, 36, e->digits, e->width, shortest, buf);
  case SFC_ENCODING_BASE58:
    return format_in(id, 58, e->digits, e->width, shortest, buf);
  case SFC_ENCODING_BASE62:
    return format_in(id, 62, e->digits, e->width, shortest, buf);
  }
  return 0;
}

/* The text for a message: printable ASCII as is, other bytes as \xNN, cut
 * after 32 bytes (SHOWN_MAX with the NUL). */
#define SHOWN_MAX (32 * 4 + 4)
static void shown(const char *text, size_t len, char *out) {
  static const char hexd[] = "0123456789ABCDEF";
  size_t n = 0, i = 0;
  for (; i < len && i < 32; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out[n++] = (char)c;
    } else {
      out[n++] = '\\';
      out[n++] = 'x';
      out[n++] = hexd[c >> 4];
      out[n++] = hexd[c & 15];
    }
  }
  if (i < len) {
    memcpy(out + n, "...", 3);
    n += 3;
  }
  out[n] = '\0';
}

/* A bad character: what it is and where. */
static sfc_status bad_char(const encoding_info *e, const char *text, size_t len,
                           size_t at, sfc_error *err) {
  char t[SHOWN_MAX], c[SHOWN_MAX];
  shown(text, len, t);
  shown(text + at, 1, c);
  if (text[at] == '\0')
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s ID '%s' has a NUL byte at position %zu (counting "
                    "from 0): an ID is characters of %s only, with nothing "
                    "after them",
                    e->name, t, at, e->alphabet);
  return sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "%s ID '%s' has '%s' at position %zu (counting from 0), "
                  "which is not in the %s alphabet (%s)",
                  e->name, t, c, at, e->name, e->alphabet);
}

/* `len` is at most the fixed width, and one digit fewer never overflows
 * (base^(width-1) <= 2^64 in every encoding): only the last digit of a
 * full-width text is checked. */
static inline sfc_status parse_in(sfc_encoding encoding, unsigned base,
                                  const char *text, size_t len, uint64_t *id,
                                  sfc_error *err) {
  const encoding_info *e = &ENCODINGS[encoding];
  uint64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    int d = digit_value(encoding, (unsigned char)text[i]);
    if (d < 0) return bad_char(e, text, len, i, err);
    if (i + 1 == e->width && v > (UINT64_MAX - (unsigned)d) / base) {
      char t[SHOWN_MAX];
      shown(text, len, t);
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "%s ID '%s' is larger than 2^64 - 1, the largest ID "
                      "(%s in %s)",
                      e->name, t, e->max, e->name);
    }
    v = v * base + (unsigned)d;
  }
  *id = v;
  return SFC_OK;
}

sfc_status sfc_id_parse(const char *text, size_t len, sfc_encoding encoding,
                        uint64_t *id, sfc_error *err) {
  if ((unsigned)encoding >= SFC_ENCODING_COUNT)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "unknown encoding %d: use dec, hex, base32, base36, "
                    "base58 or base62",
                    (int)encoding);
  const encoding_info *e = &ENCODINGS[encoding];
  if (!text || len == 0)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "empty %s ID: give 1 to %u characters of %s", e->name,
                    e->width, e->alphabet);
  if (len > e->width) {
    char t[SHOWN_MAX];
    shown(text, len, t);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s ID '%s' is %zu characters long: a 64-bit ID takes "
                    "at most %u in %s",
                    e->name, t, len, e->width, e->name);
  }
  switch (encoding) {
  case SFC_ENCODING_DEC:
    return parse_in(encoding, 10, text, len, id, err);
  case SFC_ENCODING_HEX:
    return parse_in(encoding, 16, text, len, id, err);
  case SFC_ENCODING_BASE32:
    return parse_in(encoding, 32, text, len, id, err);
  case SFC_ENCODING_BASE36:
    return parse_in(encoding, 36, text, len, id, err);
  case SFC_ENCODING_BASE58:
    return parse_in(encoding, 58, text, len, id, err);
  case SFC_ENCODING_BASE62:
    return parse_in(encoding, 62, text, len, id, err);
  }
  return sfc_fail(err, SFC_INVALID_ARGUMENT, "unknown encoding");
}
