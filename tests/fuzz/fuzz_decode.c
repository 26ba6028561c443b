/* libFuzzer harness: decode, canonical JSON, encode, range, ID parsing.
 *
 * Input: byte 0 chooses the layout (a preset, or the spec on the first line
 * when the byte is 0xff: "\xffSPEC\nREST"); the next 8 bytes are an ID, the
 * next 16 a time interval, the rest decimal ID text. Checks: decode and
 * encode are inverses, the JSON fits SFC_JSON_MAX and parses back to the same
 * ID, range bounds decode inside the interval. */
#define _GNU_SOURCE
#include "fuzz.h"
#include "snowflake_c.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t take_u64(const uint8_t **data, size_t *size) {
  uint64_t v = 0;
  for (int i = 0; i < 8 && *size; i++, (*data)++, (*size)--)
    v |= (uint64_t) * *data << (8 * i);
  return v;
}

static void check_id(const sfc_layout *l, uint64_t id) {
  sfc_parts p;
  sfc_error err;
  sfc_status st = sfc_decode(l, id, &p, &err);
  if (st != SFC_OK) {
    CHECK(st == SFC_INVALID_ARGUMENT && err.status == st);
    CHECK(l->total_bits < 64 && (id >> l->total_bits) != 0);
    return;
  }
  CHECK(p.id == id);
  char json[SFC_JSON_MAX];
  size_t n = sfc_parts_json(l, &p, json, sizeof json);
  CHECK(n > 0 && n < sizeof json && strlen(json) == n);
  char want[32];
  snprintf(want, sizeof want, "{\"id\":\"%" PRIu64 "\",", id);
  CHECK(strncmp(json, want, strlen(want)) == 0);
  CHECK(json[n - 1] == '}');
  /* A short buffer is never overrun and still NUL-terminated. */
  char small[24];
  sfc_parts_json(l, &p, small, sizeof small);
  CHECK(strnlen(small, sizeof small) < sizeof small);
  uint64_t back = 0;
  st = sfc_encode(l, &p, &back, &err);
  CHECK(st == SFC_OK);
  CHECK(back == id);
  char iso[SFC_ISO_MAX];
  n = sfc_format_iso(p.time_ms, iso, sizeof iso);
  CHECK(n > 0 && n < sizeof iso);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  sfc_layout layout;
  sfc_error err;
  uint8_t pick = data[0];
  data++, size--;
  if (pick == 0xff) {
    const uint8_t *nl = memchr(data, '\n', size);
    size_t len = nl ? (size_t)(nl - data) : size;
    char *spec = malloc(len + 1);
    if (!spec) return 0;
    memcpy(spec, data, len);
    spec[len] = '\0';
    sfc_status st = sfc_layout_parse(spec, 1288834974657, &layout, &err);
    free(spec);
    if (st != SFC_OK) return 0;
    data += nl ? len + 1 : len;
    size -= nl ? len + 1 : len;
  } else {
    const char *name, *spec;
    int64_t epoch;
    CHECK(sfc_preset_at(pick % sfc_preset_count(), &name, &spec, &epoch) ==
          SFC_OK);
    CHECK(sfc_layout_preset(name, &layout, &err) == SFC_OK);
  }

  uint64_t id = take_u64(&data, &size);
  check_id(&layout, id);
  /* The same bits cut to the layout's width always decode. */
  if (layout.total_bits < 64)
    check_id(&layout, id & ((UINT64_C(1) << layout.total_bits) - 1));

  int64_t t0 = (int64_t)take_u64(&data, &size);
  int64_t t1 = (int64_t)take_u64(&data, &size);
  uint64_t lo = 0, hi = 0;
  sfc_status st = sfc_range(&layout, t0, t1, &lo, &hi, &err);
  if (st == SFC_OK) {
    CHECK(lo <= hi);
    sfc_parts a, b;
    CHECK(sfc_decode(&layout, lo, &a, &err) == SFC_OK);
    CHECK(sfc_decode(&layout, hi, &b, &err) == SFC_OK);
    CHECK(a.time_ms >= t0 && a.time_ms <= t1);
    CHECK(b.time_ms >= t0 && b.time_ms <= t1);
  } else {
    CHECK(st == SFC_INVALID_ARGUMENT && err.status == st);
  }

  /* Encode of arbitrary parts: rejected, or decodes back to the same. */
  sfc_parts in;
  memset(&in, 0, sizeof in);
  in.time_us = t0;
  for (unsigned i = 1; i < layout.field_count; i++)
    in.values[i] = take_u64(&data, &size) >> (i % 64);
  uint64_t enc = 0;
  if (sfc_encode(&layout, &in, &enc, &err) == SFC_OK) {
    sfc_parts out;
    CHECK(sfc_decode(&layout, enc, &out, &err) == SFC_OK);
    for (unsigned i = 1; i < layout.field_count; i++)
      CHECK(out.values[i] == in.values[i]);
    CHECK(out.time_us <= in.time_us &&
          in.time_us - out.time_us < layout.unit_us);
  }

  /* The rest is decimal text. */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  uint64_t parsed;
  st = sfc_id_parse(text, size, SFC_ENCODING_DEC, &parsed, &err);
  if (st == SFC_OK) {
    CHECK(size <= 20);
    char again[32];
    snprintf(again, sizeof again, "%" PRIu64, parsed);
    /* Only leading zeros may differ from the canonical form. */
    const char *digits = text;
    while (digits[0] == '0' && digits[1])
      digits++;
    CHECK(strcmp(digits, again) == 0);
    check_id(&layout, parsed);
  } else {
    CHECK(st == SFC_INVALID_ARGUMENT && err.status == st);
  }
  free(text);
  return 0;
}
