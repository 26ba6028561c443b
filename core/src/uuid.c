/* UUIDv7 (RFC 9562 §5.7): parsed to its time and random bits, and its
 * canonical JSON. */
#include "internal.h"

#include "json_out.h"

#include <string.h>

#define HYPHENATED 36 /* 8-4-4-4-12 */
#define PLAIN 32      /* 32 hex digits */

static int hex_value(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

static bool hyphen_at(size_t i) {
  return i == 8 || i == 13 || i == 18 || i == 23;
}

sfc_status sfc_uuid7_parse(const char *text, size_t len, sfc_uuid7 *out,
                           sfc_error *err) {
  char t[SFC_SHOWN_MAX], c[SFC_SHOWN_MAX];
  if (!text) len = 0;
  sfc_shown(text ? text : "", len, 40, t);
  if (len != HYPHENATED && len != PLAIN)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "UUID '%s' is %zu characters long: give 36 "
                    "(8-4-4-4-12 hex digits with hyphens) or 32 hex digits",
                    t, len);
  uint8_t digits[PLAIN];
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    const bool hyphen = len == HYPHENATED && hyphen_at(i);
    const int d = hex_value(text[i]);
    if (hyphen ? text[i] == '-' : d >= 0) {
      if (!hyphen) digits[n++] = (uint8_t)d;
      continue;
    }
    sfc_shown(text + i, 1, 1, c);
    if (hyphen)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "UUID '%s' has '%s' at position %zu (counting from 0) "
                      "where a hyphen goes: write "
                      "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, or 32 hex "
                      "digits without hyphens",
                      t, c, i);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "UUID '%s' has '%s' at position %zu (counting from 0), "
                    "which is not a hex digit (0-9, a-f, A-F)%s",
                    t, c, i,
                    text[i] == '-' ? ": the hyphens go after 8, 12, 16 and "
                                     "20 digits (8-4-4-4-12)"
                                   : "");
  }
  const unsigned version = digits[12], variant = digits[16] >> 2;
  if (version != 7)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "UUID '%s' is a version %u UUID, not 7: only a UUIDv7 "
                    "(RFC 9562) holds a Unix time in ms",
                    t, version);
  if (variant != 2)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "UUID '%s' has variant bits %u%u, not RFC 9562's 10: its "
                    "17th hex digit is %x, where a UUIDv7 has 8, 9, a or b",
                    t, variant >> 1, variant & 1, digits[16]);
  uint64_t ms = 0, rand_b = digits[16] & 3u;
  for (size_t i = 0; i < 12; i++)
    ms = ms << 4 | digits[i];
  for (size_t i = 17; i < PLAIN; i++)
    rand_b = rand_b << 4 | digits[i];
  sfc_uuid7 u;
  memset(&u, 0, sizeof u);
  static const char hexd[] = "0123456789abcdef";
  for (size_t i = 0, k = 0; i < HYPHENATED; i++)
    u.text[i] = hyphen_at(i) ? '-' : hexd[digits[k++]];
  u.unix_ms = (int64_t)ms;
  u.rand_a = (uint16_t)(digits[13] << 8 | digits[14] << 4 | digits[15]);
  u.rand_b = rand_b;
  *out = u;
  return SFC_OK;
}

size_t sfc_uuid7_json(const sfc_uuid7 *uuid, char *buf, size_t cap) {
  char out[SFC_UUID7_JSON_MAX], *p = out;
  sfc_put_text(&p, "{\"uuid\":\"", 9);
  sfc_put_text(&p, uuid->text, HYPHENATED);
  sfc_put_text(&p, "\",\"version\":7,\"time_ms\":", 24);
  sfc_put_dec(&p, (uint64_t)uuid->unix_ms);
  sfc_put_text(&p, ",\"time\":\"", 9);
  p += sfc_format_iso(uuid->unix_ms, p, SFC_ISO_MAX);
  sfc_put_text(&p, "\",\"rand_a\":", 11);
  sfc_put_dec(&p, uuid->rand_a);
  sfc_put_text(&p, ",\"rand_b\":\"", 11);
  sfc_put_dec(&p, uuid->rand_b);
  sfc_put_text(&p, "\"}", 2);
  return sfc_copy_out(out, (size_t)(p - out), buf, cap);
}
