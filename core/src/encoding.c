/* The string forms of an ID: dec, hex, base32, base36, base58, base62. */
#include "internal.h"

#include "json_out.h"

#include <string.h>

/* Each encoding's value of a byte as a constant expression, one per
 * alphabet: -1 for a byte outside it. Parsing reads them through VALUES;
 * sfc_encoding_at publishes the same arrays. */
#define ENC_IN(c, lo, hi) ((c) >= (lo) && (c) <= (hi))
#define ENC_UPPER(c) (ENC_IN(c, 'a', 'z') ? (c) - 'a' + 'A' : (c))
#define ENC_DIGIT(c) (ENC_IN(c, '0', '9') ? (c) - '0' : -1)
#define ENC_DEC_VALUE(c) ENC_DIGIT(c)
#define ENC_HEX_VALUE(c)                                                       \
  (ENC_IN(c, '0', '9')              ? (c) - '0'                                \
   : ENC_IN(ENC_UPPER(c), 'A', 'F') ? ENC_UPPER(c) - 'A' + 10                  \
                                    : -1)
/* Crockford's letters, either case: no U; I and L read as 1, O as 0. */
#define ENC_CROCKFORD(u)                                                       \
  (ENC_IN(u, 'A', 'H')        ? (u) - 'A' + 10                                 \
   : (u) == 'I' || (u) == 'L' ? 1                                              \
   : ENC_IN(u, 'J', 'K')      ? (u) - 'J' + 18                                 \
   : ENC_IN(u, 'M', 'N')      ? (u) - 'M' + 20                                 \
   : (u) == 'O'               ? 0                                              \
   : ENC_IN(u, 'P', 'T')      ? (u) - 'P' + 22                                 \
   : ENC_IN(u, 'V', 'Z')      ? (u) - 'V' + 27                                 \
                              : -1)
#define ENC_BASE32_VALUE(c)                                                    \
  (ENC_IN(c, '0', '9') ? (c) - '0' : ENC_CROCKFORD(ENC_UPPER(c)))
#define ENC_BASE36_VALUE(c)                                                    \
  (ENC_IN(c, '0', '9')              ? (c) - '0'                                \
   : ENC_IN(ENC_UPPER(c), 'A', 'Z') ? ENC_UPPER(c) - 'A' + 10                  \
                                    : -1)
/* Bitcoin's: no 0, I, O, l. */
#define ENC_BASE58_VALUE(c)                                                    \
  (ENC_IN(c, '1', '9')   ? (c) - '1'                                           \
   : ENC_IN(c, 'A', 'H') ? (c) - 'A' + 9                                       \
   : ENC_IN(c, 'J', 'N') ? (c) - 'J' + 17                                      \
   : ENC_IN(c, 'P', 'Z') ? (c) - 'P' + 22                                      \
   : ENC_IN(c, 'a', 'k') ? (c) - 'a' + 33                                      \
   : ENC_IN(c, 'm', 'z') ? (c) - 'm' + 44                                      \
                         : -1)
#define ENC_BASE62_VALUE(c)                                                    \
  (ENC_IN(c, '0', '9')   ? (c) - '0'                                           \
   : ENC_IN(c, 'A', 'Z') ? (c) - 'A' + 10                                      \
   : ENC_IN(c, 'a', 'z') ? (c) - 'a' + 36                                      \
                         : -1)

/* F of every byte, 0 to 255. */
#define ENC_BYTES4(F, i) F((i)), F((i) + 1), F((i) + 2), F((i) + 3)
#define ENC_BYTES16(F, i)                                                      \
  ENC_BYTES4(F, (i)), ENC_BYTES4(F, (i) + 4), ENC_BYTES4(F, (i) + 8),          \
      ENC_BYTES4(F, (i) + 12)
#define ENC_BYTES64(F, i)                                                      \
  ENC_BYTES16(F, (i)), ENC_BYTES16(F, (i) + 16), ENC_BYTES16(F, (i) + 32),     \
      ENC_BYTES16(F, (i) + 48)
#define ENC_BYTES256(F)                                                        \
  {                                                                            \
    ENC_BYTES64(F, 0), ENC_BYTES64(F, 64), ENC_BYTES64(F, 128),                \
        ENC_BYTES64(F, 192)                                                    \
  }

static const signed char VALUES[SFC_ENCODING_COUNT][256] = {
    ENC_BYTES256(ENC_DEC_VALUE),    ENC_BYTES256(ENC_HEX_VALUE),
    ENC_BYTES256(ENC_BASE32_VALUE), ENC_BYTES256(ENC_BASE36_VALUE),
    ENC_BYTES256(ENC_BASE58_VALUE), ENC_BYTES256(ENC_BASE62_VALUE),
};

typedef struct encoding_row {
  sfc_encoding_info info; /* digits in ASCII order: fixed strings sort as
                             the IDs */
  const char *max;        /* 2^64 - 1, fixed width */
  const char *alphabet;   /* for messages */
} encoding_row;

#define ENC_ROW(e, name, digits, radix, width, fixed_by_default)               \
  { e, name, digits, radix, width, VALUES[e], fixed_by_default }

/* Each form's fixed width: the digits of the largest ID. */
enum {
  WIDTH_DEC = 20,
  WIDTH_HEX = 16,
  WIDTH_BASE32 = 13,
  WIDTH_BASE36 = 13,
  WIDTH_BASE58 = 11,
  WIDTH_BASE62 = 11
};

static const encoding_row ENCODINGS[SFC_ENCODING_COUNT] = {
    {ENC_ROW(SFC_ENCODING_DEC, "dec", "0123456789", 10, WIDTH_DEC, false),
     "18446744073709551615", "0-9"},
    {ENC_ROW(SFC_ENCODING_HEX, "hex", "0123456789abcdef", 16, WIDTH_HEX, true),
     "ffffffffffffffff", "0-9a-f, any case"},
    {ENC_ROW(SFC_ENCODING_BASE32, "base32", "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
             32, WIDTH_BASE32, true),
     "FZZZZZZZZZZZZ",
     "Crockford's 0-9A-Z without I, L, O, U; any case, I and L read as 1, O "
     "as 0"},
    {ENC_ROW(SFC_ENCODING_BASE36, "base36",
             "0123456789abcdefghijklmnopqrstuvwxyz", 36, WIDTH_BASE36, true),
     "3w5e11264sgsf", "0-9a-z, any case"},
    {ENC_ROW(SFC_ENCODING_BASE58, "base58",
             "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 58,
             WIDTH_BASE58, true),
     "jpXCZedGfVQ", "Bitcoin's 1-9A-Za-z without I, O, l"},
    {ENC_ROW(SFC_ENCODING_BASE62, "base62",
             "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
             62, WIDTH_BASE62, true),
     "LygHa16AHYF", "0-9A-Za-z"},
};

const sfc_encoding_info *sfc_encoding_at(size_t i) {
  return i < SFC_ENCODING_COUNT ? &ENCODINGS[i].info : NULL;
}

const char *sfc_encoding_name(sfc_encoding encoding) {
  return (unsigned)encoding < SFC_ENCODING_COUNT ? ENCODINGS[encoding].info.name
                                                 : NULL;
}

sfc_status sfc_encoding_by_name(const char *name, size_t len, sfc_encoding *out,
                                sfc_error *err) {
  for (unsigned i = 0; name && i < SFC_ENCODING_COUNT; i++) {
    const char *known = ENCODINGS[i].info.name;
    if (strlen(known) == len && memcmp(known, name, len) == 0) {
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

/* The largest power of `base` below 2^32, and its exponent in *k. With
 * `base` a constant, as at every call, this folds to constants. */
static SFC_ALWAYS_INLINE uint32_t chunk_of(unsigned base, unsigned *k) {
  uint32_t chunk = base;
  for (*k = 1; (uint64_t)chunk * base <= UINT32_MAX; ++*k)
    chunk *= base;
  return chunk;
}

/* Writes the k digits of r, leading zeros included, before p. */
static SFC_ALWAYS_INLINE char *digits_of(uint32_t r, unsigned base, unsigned k,
                                         const char *digits, char *p) {
  for (; k; k--, r /= base)
    *--p = digits[r % base];
  return p;
}

/* Digits from the right, in chunks of base^k below 2^32: one 64-bit
 * division a chunk, 32-bit ones within it, and the chunks' chains of
 * divisions overlap. `base` is a constant at every call, so each division
 * compiles to a multiplication or a shift. */
static SFC_ALWAYS_INLINE size_t format_in(uint64_t v, unsigned base,
                                          const char *digits, char *buf) {
  unsigned k;
  uint32_t chunk = chunk_of(base, &k);
  char tmp[SFC_ENCODED_MAX];
  char *end = tmp + sizeof tmp, *p = end;
  if (base & (base - 1)) /* a power of two takes shifts, no chain to cut */
    for (; v >= chunk; v /= chunk)
      p = digits_of((uint32_t)(v % chunk), base, k, digits, p);
  do {
    *--p = digits[v % base];
    v /= base;
  } while (v);
  size_t n = (size_t)(end - p);
  memcpy(buf, p, n);
  buf[n] = '\0';
  return n;
}

/* The fixed width, every position written in place, in chunks as above;
 * `width` is a constant at every call too, so the loops unroll. */
static SFC_ALWAYS_INLINE size_t format_fixed(uint64_t v, unsigned base,
                                             unsigned width, const char *digits,
                                             char *buf) {
  char *p = buf + width;
  *p = '\0';
  if (!(base & (base - 1))) { /* a power of two: each digit its own shift */
    unsigned shift = 0;
    while (1u << shift < base)
      shift++;
    for (unsigned i = 0; i < width; i++)
      *--p = digits[(v >> (i * shift)) & (base - 1)];
    return width;
  }
  unsigned k;
  uint32_t chunk = chunk_of(base, &k);
  unsigned left = width;
  for (; left > k; left -= k, v /= chunk)
    p = digits_of((uint32_t)(v % chunk), base, k, digits, p);
  /* What is left is below base^left (the width fits every ID): 32 bits. */
  digits_of((uint32_t)v, base, left, digits, p);
  return width;
}

/* The ID in `base`, whose fixed width is `width`. */
static SFC_ALWAYS_INLINE size_t format_as(uint64_t v, unsigned base,
                                          unsigned width, const char *digits,
                                          bool shortest, char *buf) {
  return shortest ? format_in(v, base, digits, buf)
                  : format_fixed(v, base, width, digits, buf);
}

size_t sfc_id_format(uint64_t id, sfc_encoding encoding, unsigned flags,
                     char *buf, size_t cap) {
  if ((unsigned)encoding >= SFC_ENCODING_COUNT || !buf) return 0;
  if (flags & ~(SFC_FORMAT_SHORTEST | SFC_FORMAT_FIXED) ||
      flags == (SFC_FORMAT_SHORTEST | SFC_FORMAT_FIXED))
    return 0;
  const sfc_encoding_info *e = &ENCODINGS[encoding].info;
  bool shortest =
      flags ? (flags & SFC_FORMAT_SHORTEST) != 0 : !e->fixed_by_default;
  if (cap < SFC_ENCODED_MAX) {
    /* Too small for the worst case: measure this ID first. */
    size_t need = 1;
    for (uint64_t v = id / e->radix; v; v /= e->radix)
      need++;
    if (!shortest && need < e->width) need = e->width;
    if (cap <= need) return 0;
  }
  switch (encoding) {
  case SFC_ENCODING_DEC:
    return format_as(id, 10, WIDTH_DEC, e->digits, shortest, buf);
  case SFC_ENCODING_HEX:
    return format_as(id, 16, WIDTH_HEX, e->digits, shortest, buf);
  case SFC_ENCODING_BASE32:
    return format_as(id, 32, WIDTH_BASE32, e->digits, shortest, buf);
  case SFC_ENCODING_BASE36:
    return format_as(id, 36, WIDTH_BASE36, e->digits, shortest, buf);
  case SFC_ENCODING_BASE58:
    return format_as(id, 58, WIDTH_BASE58, e->digits, shortest, buf);
  case SFC_ENCODING_BASE62:
    return format_as(id, 62, WIDTH_BASE62, e->digits, shortest, buf);
  }
  return 0;
}

#define SHOWN_MAX SFC_SHOWN_MAX
void sfc_shown(const char *text, size_t len, size_t most, char *out) {
  static const char hexd[] = "0123456789ABCDEF";
  size_t n = 0, i = 0;
  for (; i < len && i < most && i < 40; i++) {
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
static sfc_status bad_char(const encoding_row *e, const char *text, size_t len,
                           size_t at, sfc_error *err) {
  char t[SHOWN_MAX], c[SHOWN_MAX];
  sfc_shown(text, len, 32, t);
  sfc_shown(text + at, 1, 1, c);
  if (text[at] == '\0')
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s ID '%s' has a NUL byte at position %zu (counting "
                    "from 0): an ID is characters of %s only, with nothing "
                    "after them",
                    e->info.name, t, at, e->alphabet);
  return sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "%s ID '%s' has '%s' at position %zu (counting from 0), "
                  "which is not in the %s alphabet (%s)",
                  e->info.name, t, c, at, e->info.name, e->alphabet);
}

/* `len` is at most the fixed width, and one digit fewer never overflows
 * (base^(width-1) <= 2^64 in every encoding): only the last digit of a
 * full-width text is checked. */
static inline sfc_status parse_in(sfc_encoding encoding, unsigned base,
                                  const char *text, size_t len, uint64_t *id,
                                  sfc_error *err) {
  const encoding_row *e = &ENCODINGS[encoding];
  uint64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    int d = VALUES[encoding][(unsigned char)text[i]];
    if (d < 0) return bad_char(e, text, len, i, err);
    if (i + 1 == e->info.width && v > (UINT64_MAX - (unsigned)d) / base) {
      char t[SHOWN_MAX];
      sfc_shown(text, len, 32, t);
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "%s ID '%s' is larger than 2^64 - 1, the largest ID "
                      "(%s in %s)",
                      e->info.name, t, e->max, e->info.name);
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
  const encoding_row *e = &ENCODINGS[encoding];
  if (!text || len == 0)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "empty %s ID: give 1 to %u characters of %s", e->info.name,
                    e->info.width, e->alphabet);
  if (len > e->info.width) {
    char t[SHOWN_MAX];
    sfc_shown(text, len, 32, t);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s ID '%s' is %zu characters long: a 64-bit ID takes "
                    "at most %u in %s",
                    e->info.name, t, len, e->info.width, e->info.name);
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

size_t sfc_copy_out(const char *text, size_t n, char *buf, size_t cap) {
  if (cap) {
    const size_t k = n < cap ? n : cap - 1;
    memcpy(buf, text, k);
    buf[k] = '\0';
  }
  return n;
}
