/* Decode, encode, range and canonical JSON. */
#include "internal.h"

#include "json_out.h"

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

void sfc_layout_decode_rule(const sfc_layout *layout, sfc_decode_rule *out) {
  memset(out, 0, sizeof *out);
  out->max_id = layout->total_bits < 64
                    ? (UINT64_C(1) << layout->total_bits) - 1
                    : UINT64_MAX;
  out->epoch_us = layout->epoch_ms * 1000;
  out->unit_us = layout->unit_us;
  out->field_count = layout->field_count;
  for (unsigned i = 0; i < layout->field_count; i++) {
    out->shift[i] = layout->fields[i].shift;
    out->mask[i] = layout->fields[i].max;
  }
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

/* The tick that `ms` (at least 1) ms after the epoch falls in: `up`, the
 * first that starts at or after it (ceil(ms * 1000 / unit_us)); else the
 * last that starts before it (floor((ms * 1000 - 1) / unit_us)). Exact in
 * 64 bits: ms = q * unit_us + r, so ms * 1000 = q * 1000 * unit_us +
 * r * 1000, with r * 1000 < 1000 * unit_us. UINT64_MAX when it is past any
 * time field. */
static uint64_t tick_of(uint64_t ms, int64_t unit_us, bool up) {
  uint64_t u = (uint64_t)unit_us, q = ms / u, r = ms % u;
  if (q > (UINT64_MAX - 1000) / 1000) return UINT64_MAX;
  if (up) return q * 1000 + (r * 1000 + u - 1) / u;
  return r ? q * 1000 + (r * 1000 - 1) / u : q * 1000 - 1;
}

sfc_status sfc_range(const sfc_layout *layout, int64_t t0_ms, int64_t t1_ms,
                     uint64_t *min_id, uint64_t *max_id, sfc_error *err) {
  const sfc_field *tf = &layout->fields[0];
  /* Ticks whose start in ms lies in [t0, t1): start_us in [t0*1000,
   * t1*1000 - 1]; counted from the epoch in ms (the epoch is whole ms), as
   * unsigned differences, which are exact once t > epoch_ms. */
  bool empty = t1_ms <= t0_ms || t1_ms <= layout->epoch_ms;
  uint64_t lo = 0, hi = 0;
  if (!empty) {
    if (t0_ms > layout->epoch_ms)
      lo = tick_of((uint64_t)t0_ms - (uint64_t)layout->epoch_ms,
                   layout->unit_us, true);
    hi = tick_of((uint64_t)t1_ms - (uint64_t)layout->epoch_ms, layout->unit_us,
                 false);
    if (hi > tf->max) hi = tf->max;
  }
  if (empty || lo > hi)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "no ID of the layout has a time in [%lld, %lld) ms (t1 "
                    "excluded): the interval is empty, before the epoch or "
                    "after the time field's end",
                    (long long)t0_ms, (long long)t1_ms);
  uint64_t low_mask = tf->shift == 0 ? 0 : (UINT64_MAX >> (64 - tf->shift));
  *min_id = lo << tf->shift;
  *max_id = (hi << tf->shift) | low_mask;
  return SFC_OK;
}

/* By hand, not snprintf: a decoder writes one per ID. Every piece is
 * bounded (names by SFC_NAME_MAX, numbers by 20 digits): SFC_JSON_MAX
 * holds the longest. */
size_t sfc_parts_json(const sfc_layout *layout, const sfc_parts *parts,
                      char *buf, size_t cap) {
  char out[SFC_JSON_MAX], *p = out;
  sfc_put_text(&p, "{\"id\":\"", 7);
  sfc_put_dec(&p, parts->id);
  sfc_put_text(&p, "\",\"time_ms\":", 12);
  if (parts->time_ms < 0) *p++ = '-';
  sfc_put_dec(&p, parts->time_ms < 0 ? 0 - (uint64_t)parts->time_ms
                                     : (uint64_t)parts->time_ms);
  sfc_put_text(&p, ",\"time\":\"", 9);
  p += sfc_format_iso(parts->time_ms, p, SFC_ISO_MAX);
  *p++ = '"';
  for (unsigned i = 1; i < layout->field_count; i++) {
    sfc_put_text(&p, ",\"", 2);
    sfc_put_text(&p, layout->fields[i].name, strlen(layout->fields[i].name));
    sfc_put_text(&p, "\":", 2);
    sfc_put_dec(&p, parts->values[i]);
  }
  *p++ = '}';
  return sfc_copy_out(out, (size_t)(p - out), buf, cap);
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
