/* Decode, encode, range, canonical JSON and ID parsing. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

sfc_status sfc_decode(const sfc_layout *layout, uint64_t id, sfc_parts *out,
                      sfc_error *err) {
  if (layout->total_bits < 64 && (id >> layout->total_bits) != 0)
    return sfc_fail(
        err, SFC_INVALID_ARGUMENT,
        "ID %llu does not fit the layout: it has bits above the "
        "layout's %u (largest ID %llu); check the preset or layout",
        (unsigned long long)id, layout->total_bits,
        (unsigned long long)((UINT64_C(1) << layout->total_bits) - 1));
  sfc_parts p;
  memset(&p, 0, sizeof p);
  p.id = id;
  for (unsigned i = 0; i < layout->field_count; i++) {
    const sfc_field *f = &layout->fields[i];
    p.values[i] = (id >> f->shift) & f->max;
  }
  p.time_us = layout->epoch_ms * 1000 + (int64_t)p.values[0] * layout->unit_us;
  p.time_ms = floor_div(p.time_us, 1000);
  *out = p;
  return SFC_OK;
}

sfc_status sfc_encode(const sfc_layout *layout, const sfc_parts *in,
                      uint64_t *id, sfc_error *err) {
  int64_t epoch_us = layout->epoch_ms * 1000;
  const sfc_field *tf = &layout->fields[0];
  if (in->time_us < epoch_us) {
    char iso[SFC_ISO_MAX];
    sfc_format_iso(layout->epoch_ms, iso, sizeof iso);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "time %lld ms is before the layout's epoch %s",
                    (long long)floor_div(in->time_us, 1000), iso);
  }
  uint64_t ticks = (uint64_t)((in->time_us - epoch_us) / layout->unit_us);
  if (ticks > tf->max) {
    sfc_layout_info info;
    sfc_layout_describe(layout, &info);
    char iso[SFC_ISO_MAX];
    sfc_format_iso(info.time_end_ms, iso, sizeof iso);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "time %lld ms is past the end of the layout's time field "
                    "(%s)",
                    (long long)floor_div(in->time_us, 1000), iso);
  }
  uint64_t v = ticks << tf->shift;
  for (unsigned i = 1; i < layout->field_count; i++) {
    const sfc_field *f = &layout->fields[i];
    if (in->values[i] > f->max)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "%s %llu does not fit in %u bits (largest %llu)", f->name,
                      (unsigned long long)in->values[i], f->bits,
                      (unsigned long long)f->max);
    v |= in->values[i] << f->shift;
  }
  *id = v;
  return SFC_OK;
}

sfc_status sfc_range(const sfc_layout *layout, int64_t t0_ms, int64_t t1_ms,
                     uint64_t *min_id, uint64_t *max_id, sfc_error *err) {
  const sfc_field *tf = &layout->fields[0];
  sfc_i128 epoch_us = (sfc_i128)layout->epoch_ms * 1000;
  sfc_i128 a = (sfc_i128)t0_ms * 1000 - epoch_us;
  sfc_i128 b = (sfc_i128)t1_ms * 1000 - 1 - epoch_us;
  /* Ticks whose start in ms lies in [t0, t1): start_us in [t0*1000,
   * t1*1000 - 1]. */
  sfc_i128 lo = a <= 0 ? 0 : (a + layout->unit_us - 1) / layout->unit_us;
  sfc_i128 hi = b < 0 ? -1 : b / layout->unit_us;
  if (hi > (sfc_i128)tf->max) hi = tf->max;
  if (t1_ms <= t0_ms || lo > hi)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "no ID of the layout has a time in [%lld, %lld) ms (t1 "
                    "excluded): the interval is empty, before the epoch or "
                    "after the time field's end",
                    (long long)t0_ms, (long long)t1_ms);
  uint64_t low_mask = tf->shift == 0 ? 0 : (UINT64_MAX >> (64 - tf->shift));
  *min_id = (uint64_t)lo << tf->shift;
  *max_id = ((uint64_t)hi << tf->shift) | low_mask;
  return SFC_OK;
}

size_t sfc_parts_json(const sfc_layout *layout, const sfc_parts *parts,
                      char *buf, size_t cap) {
  char out[SFC_JSON_MAX];
  char iso[SFC_ISO_MAX];
  sfc_format_iso(parts->time_ms, iso, sizeof iso);
  int n = snprintf(
      out, sizeof out, "{\"id\":\"%llu\",\"time_ms\":%lld,\"time\":\"%s\"",
      (unsigned long long)parts->id, (long long)parts->time_ms, iso);
  for (unsigned i = 1; i < layout->field_count; i++)
    n += snprintf(out + n, sizeof out - (size_t)n, ",\"%s\":%llu",
                  layout->fields[i].name, (unsigned long long)parts->values[i]);
  n += snprintf(out + n, sizeof out - (size_t)n, "}");
  if (cap) snprintf(buf, cap, "%s", out);
  return (size_t)n;
}

sfc_status sfc_text_check(const char *what, const char *text, size_t len,
                          sfc_error *err) {
  const char *nul = text && len ? memchr(text, '\0', len) : NULL;
  if (nul)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s has a NUL byte at position %zu (counting from 0), "
                    "where C text would end and the rest be lost: remove it",
                    what ? what : "text", (size_t)(nul - text));
  return SFC_OK;
}

sfc_status sfc_id_parse_n(const char *text, size_t len, uint64_t *id,
                          sfc_error *err) {
  if (!text || len == 0)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "empty ID: give a decimal number");
  const char *nul = memchr(text, '\0', len);
  if (nul)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "ID text has a NUL byte at position %zu (counting from "
                    "0): an ID is decimal digits only, with nothing after them",
                    (size_t)(nul - text));
  uint64_t v = 0;
  int shown = (int)(len < 40 ? len : 40);
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (c < '0' || c > '9')
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "ID '%.*s' is not a decimal number (digits only)", shown,
                      text);
    unsigned d = (unsigned)(c - '0');
    if (v > (UINT64_MAX - d) / 10)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "ID '%.*s' is larger than 64 bits", shown, text);
    v = v * 10 + d;
  }
  *id = v;
  return SFC_OK;
}

sfc_status sfc_id_parse(const char *text, uint64_t *id, sfc_error *err) {
  return sfc_id_parse_n(text, text ? strlen(text) : 0, id, err);
}

sfc_status sfc_encode_named(const sfc_layout *layout, int64_t time_us,
                            const sfc_node_value *fields, size_t count,
                            uint64_t *id, sfc_error *err) {
  sfc_parts p;
  memset(&p, 0, sizeof p);
  p.time_us = time_us;
  bool given[SFC_MAX_FIELDS] = {false};
  for (size_t k = 0; k < count; k++) {
    const char *name = fields[k].name ? fields[k].name : "(null)";
    int idx = sfc_layout_field_index(layout, name);
    if (idx == 0)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "the time is given as a time, not as field 'time'");
    if (idx < 0) {
      char spec[SFC_SPEC_MAX];
      sfc_layout_spec(layout, spec, sizeof spec);
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "'%s' is not a field of layout %s", name, spec);
    }
    if (given[idx])
      return sfc_fail(err, SFC_INVALID_ARGUMENT, "field '%s' is given twice",
                      name);
    if (fields[k].value < 0)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "field '%s' is negative (%lld)", name,
                      (long long)fields[k].value);
    given[idx] = true;
    p.values[idx] = (uint64_t)fields[k].value;
  }
  for (unsigned i = 1; i < layout->field_count; i++)
    if (!given[i])
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "no value for field '%s': give %s=N",
                      layout->fields[i].name, layout->fields[i].name);
  return sfc_encode(layout, &p, id, err);
}
