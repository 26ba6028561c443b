/* Layout grammar, validation, presets and description. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const struct preset {
  const char *name, *spec;
  int64_t epoch_ms;
} presets[] = {
    {"default", "time:41@1ms,clock:3,worker:7,seq:12", 1704067200000},
    {"twitter", "time:41@1ms,datacenter:5,worker:5,seq:12", 1288834974657},
    {"discord", "time:42@1ms,worker:5,process:5,seq:12", 1420070400000},
    {"sonyflake", "time:39@10ms,seq:8,machine:16", 1409529600000},
    {"baidu", "time:28@1s,worker:22,seq:13", 1463673600000},
    {"instagram", "time:41@1ms,shard:13,seq:10", 1314220021721},
    /* Below 2^53 until 2093: a JavaScript Number holds every ID exactly. */
    {"jssafe", "time:41@1ms,worker:5,seq:7", 1704067200000},
};

#define PRESET_COUNT (sizeof presets / sizeof presets[0])

size_t sfc_preset_count(void) {
  return PRESET_COUNT;
}

sfc_status sfc_preset_at(size_t i, const char **name, const char **spec,
                         int64_t *epoch_ms) {
  if (i >= PRESET_COUNT) return SFC_INVALID_ARGUMENT;
  if (name) *name = presets[i].name;
  if (spec) *spec = presets[i].spec;
  if (epoch_ms) *epoch_ms = presets[i].epoch_ms;
  return SFC_OK;
}

sfc_status sfc_layout_preset(const char *name, sfc_layout *out,
                             sfc_error *err) {
  for (size_t i = 0; name && i < PRESET_COUNT; i++)
    if (strcmp(name, presets[i].name) == 0)
      return sfc_layout_parse(presets[i].spec, presets[i].epoch_ms, out, err);
  char known[128] = "";
  for (size_t i = 0, at = 0; i < PRESET_COUNT && at < sizeof known; i++)
    at += (size_t)snprintf(known + at, sizeof known - at, "%s%s", i ? ", " : "",
                           presets[i].name);
  return sfc_fail(err, SFC_INVALID_LAYOUT, "unknown preset '%s': use one of %s",
                  name ? name : "(null)", known);
}

/* Parses a decimal number of at most `max_digits` digits ending at `end`. */
const char *sfc_layout_preset_name(const sfc_layout *layout) {
  char spec[SFC_SPEC_MAX];
  sfc_layout_spec(layout, spec, sizeof spec);
  for (size_t i = 0; i < PRESET_COUNT; i++) {
    sfc_layout p;
    if (presets[i].epoch_ms == layout->epoch_ms &&
        sfc_layout_parse(presets[i].spec, presets[i].epoch_ms, &p, NULL) ==
            SFC_OK) {
      char preset_spec[SFC_SPEC_MAX];
      sfc_layout_spec(&p, preset_spec, sizeof preset_spec);
      if (strcmp(spec, preset_spec) == 0) return presets[i].name;
    }
  }
  return NULL;
}

sfc_status sfc_layout_resolve(const sfc_layout *layout, const char *preset,
                              const char *spec, const char *epoch,
                              sfc_layout *out, sfc_error *err) {
  if (layout && (preset || spec || epoch))
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "a layout object carries its spec and epoch: give it "
                    "alone, or its spec with another epoch");
  if (layout) {
    *out = *layout;
    return SFC_OK;
  }
  if (preset && spec)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "give a preset or a layout, not both");
  if (spec) {
    int64_t epoch_ms;
    if (!epoch)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "a layout needs its epoch: give epoch (Unix ms or an "
                      "ISO-8601 UTC instant such as 2024-01-01)");
    sfc_status st = sfc_epoch_parse(epoch, &epoch_ms, err);
    return st == SFC_OK ? sfc_layout_parse(spec, epoch_ms, out, err) : st;
  }
  if (epoch && !preset)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "an epoch needs the layout spec it belongs to: give both");
  if (epoch)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "a preset carries its own epoch: to change it, give the "
                    "preset's layout with the new epoch");
  return sfc_layout_preset(preset ? preset : "default", out, err);
}

sfc_status sfc_layout_resolve_for_ids(const sfc_layout *layout,
                                      const char *preset, const char *spec,
                                      const char *epoch, sfc_layout *out,
                                      sfc_error *err) {
  if (!layout && !preset && !spec && !epoch)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "no layout given: name the one the IDs were made with (a "
                    "preset, or a layout spec with its epoch); an ID read "
                    "under another layout gives a believable wrong answer, "
                    "so none is assumed");
  return sfc_layout_resolve(layout, preset, spec, epoch, out, err);
}

static bool parse_uint(const char *s, const char *end, int64_t *out) {
  if (s == end || end - s > 12) return false;
  int64_t v = 0;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9') return false;
    v = v * 10 + (*s - '0');
  }
  *out = v;
  return true;
}

static sfc_status parse_unit(const char *spec, const char *s, const char *end,
                             int64_t *unit_us, sfc_error *err) {
  const char *num_end = s;
  while (num_end < end && *num_end >= '0' && *num_end <= '9')
    num_end++;
  size_t suffix_len = (size_t)(end - num_end);
  int64_t scale = 0;
  if (suffix_len == 2 && memcmp(num_end, "us", 2) == 0)
    scale = 1;
  else if (suffix_len == 2 && memcmp(num_end, "ms", 2) == 0)
    scale = 1000;
  else if (suffix_len == 1 && *num_end == 's')
    scale = 1000000;
  int64_t n;
  if (!scale || !parse_uint(s, num_end, &n) || n == 0 ||
      n > 86400000000 / scale)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s': bad time unit '%.*s': write a positive "
                    "whole number followed by us, ms or s (such as 1ms, 10ms, "
                    "1s), at most one day",
                    spec, (int)(end - s), s);
  *unit_us = n * scale;
  return SFC_OK;
}

static sfc_status parse_field(const char *spec, const char *s, const char *end,
                              unsigned index, sfc_field *f, int64_t *unit_us,
                              sfc_error *err) {
  const char *colon = memchr(s, ':', (size_t)(end - s));
  if (!colon)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s': field %u '%.*s' has no ':': write name:bits",
                    spec, index + 1, (int)(end - s), s);
  size_t len = (size_t)(colon - s);
  if (len == 0 || len >= SFC_NAME_MAX)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s': field %u has %s name: names have 1 to %d "
                    "characters",
                    spec, index + 1, len == 0 ? "an empty" : "too long a",
                    SFC_NAME_MAX - 1);
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9') ||
              (i > 0 && c == '_');
    if (c == ' ' || c == '\t') /* "time:41@1ms, worker:10": a habit */
      return sfc_fail(err, SFC_INVALID_LAYOUT,
                      "layout '%s': field %u '%.*s' has a space: a layout "
                      "is written without spaces (name:bits,name:bits)",
                      spec, index + 1, (int)len, s);
    if (!ok)
      return sfc_fail(err, SFC_INVALID_LAYOUT,
                      "layout '%s': field name '%.*s' must be lower-case "
                      "letters, digits and '_', starting with a letter",
                      spec, (int)len, s);
  }
  memcpy(f->name, s, len);
  f->name[len] = '\0';
  /* The canonical JSON's own keys: a field of that name would repeat one. */
  if (strcmp(f->name, "id") == 0 || strcmp(f->name, "time_ms") == 0)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s': a field may not be named '%s': decoded IDs "
                    "use that name for the %s; call it otherwise",
                    spec, f->name, f->name[0] == 'i' ? "ID itself" : "time");
  const char *at = memchr(colon, '@', (size_t)(end - colon));
  const char *bits_end = at ? at : end;
  int64_t bits;
  if (!parse_uint(colon + 1, bits_end, &bits))
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s': field '%s' has width '%.*s': write a whole "
                    "number of bits",
                    spec, f->name, (int)(bits_end - colon - 1), colon + 1);
  if (bits == 0)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s': field '%s' is zero bits wide: every field "
                    "needs at least 1 bit",
                    spec, f->name);
  if (bits > 64)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s': field '%s' is %lld bits wide: an ID has 64",
                    spec, f->name, (long long)bits);
  f->bits = (unsigned)bits;
  if (strcmp(f->name, "time") == 0)
    f->kind = SFC_FIELD_TIME;
  else if (strcmp(f->name, "seq") == 0)
    f->kind = SFC_FIELD_SEQ;
  else if (strcmp(f->name, "clock") == 0)
    f->kind = SFC_FIELD_CLOCK;
  else
    f->kind = SFC_FIELD_NODE;
  if (at) {
    if (f->kind != SFC_FIELD_TIME)
      return sfc_fail(err, SFC_INVALID_LAYOUT,
                      "layout '%s': field '%s' has a unit: only the time "
                      "field has one",
                      spec, f->name);
    return parse_unit(spec, at + 1, end, unit_us, err);
  }
  return SFC_OK;
}

/* The first microsecond past the time field (Unix µs): the epoch plus
 * 2^bits ticks; false when it lies past INT64_MAX µs. The epoch is never
 * before 1970 (sfc_layout_parse refuses one that is). */
static bool time_end_us(int64_t epoch_ms, const sfc_field *tf, int64_t unit_us,
                        int64_t *end_us) {
  int64_t epoch_us, span_us;
  return tf->bits < 63 && sfc_mul_i64(epoch_ms, 1000, &epoch_us) &&
         sfc_mul_i64((int64_t)tf->max + 1, unit_us, &span_us) &&
         sfc_add_i64(epoch_us, span_us, end_us);
}

/* 2^bits, exactly. */
static double pow2(unsigned bits) {
  double v = 1.0;
  for (; bits > 62; bits -= 62)
    v *= (double)(UINT64_C(1) << 62);
  return v * (double)(UINT64_C(1) << bits);
}

sfc_status sfc_layout_parse(const char *spec, int64_t epoch_ms, sfc_layout *out,
                            sfc_error *err) {
  sfc_layout l;
  memset(&l, 0, sizeof l);
  l.unit_us = 1000;
  l.seq_index = l.clock_index = -1;
  l.time_index = -1;
  if (!spec || !*spec)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "the layout is empty: write fields such as "
                    "time:41@1ms,worker:10,seq:12");
  if (strlen(spec) >= SFC_SPEC_MAX)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "the layout is longer than %d characters",
                    SFC_SPEC_MAX - 1);
  const char *s = spec;
  unsigned total = 0;
  for (;;) {
    const char *end = strchr(s, ',');
    if (!end) end = s + strlen(s);
    if (l.field_count == SFC_MAX_FIELDS)
      return sfc_fail(err, SFC_INVALID_LAYOUT,
                      "layout '%s' has more than %d fields", spec,
                      SFC_MAX_FIELDS);
    sfc_field *f = &l.fields[l.field_count];
    sfc_status st =
        parse_field(spec, s, end, l.field_count, f, &l.unit_us, err);
    if (st != SFC_OK) return st;
    for (unsigned i = 0; i < l.field_count; i++)
      if (strcmp(l.fields[i].name, f->name) == 0)
        return sfc_fail(err, SFC_INVALID_LAYOUT,
                        "layout '%s' has two fields named '%s'", spec, f->name);
    int idx = (int)l.field_count;
    if (f->kind == SFC_FIELD_TIME) {
      if (idx != 0)
        return sfc_fail(err, SFC_INVALID_LAYOUT,
                        "layout '%s': the time field must come first (most "
                        "significant), so that IDs sort by time",
                        spec);
      l.time_index = 0;
    } else if (f->kind == SFC_FIELD_SEQ) {
      l.seq_index = idx;
    } else if (f->kind == SFC_FIELD_CLOCK) {
      if (f->bits > SFC_MAX_CLOCK_BITS)
        return sfc_fail(err, SFC_INVALID_LAYOUT,
                        "layout '%s': the clock field is %u bits wide; at "
                        "most %d are allowed",
                        spec, f->bits, SFC_MAX_CLOCK_BITS);
      l.clock_index = idx;
    }
    total += f->bits;
    l.field_count++;
    if (!*end) break;
    s = end + 1;
  }
  if (l.time_index != 0)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s' has no time field: start it with time:BITS",
                    spec);
  if (l.seq_index < 0)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s' has no seq field: add seq:BITS", spec);
  if (total > 64)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s' is %u bits wide: an ID has at most 64", spec,
                    total);
  l.total_bits = total;
  unsigned shift = 0;
  for (unsigned i = l.field_count; i-- > 0;) {
    sfc_field *f = &l.fields[i];
    f->shift = shift;
    f->max = f->bits == 64 ? UINT64_MAX : (UINT64_C(1) << f->bits) - 1;
    shift += f->bits;
  }
  if (epoch_ms < 0)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "epoch %lld is before 1970: give Unix milliseconds",
                    (long long)epoch_ms);
  int64_t now_ms = sfc_wall_us() / 1000;
  if (epoch_ms > now_ms) {
    char iso[SFC_ISO_MAX];
    sfc_format_iso(epoch_ms, iso, sizeof iso);
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "epoch %lld (%s) is in the future: IDs would have no "
                    "time to stand on; use a past instant",
                    (long long)epoch_ms, iso);
  }
  int64_t end_us;
  if (!time_end_us(epoch_ms, &l.fields[0], l.unit_us, &end_us))
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "layout '%s': a %u-bit time field of %lldus would run "
                    "past the year 294000; use fewer bits",
                    spec, l.fields[0].bits, (long long)l.unit_us);
  l.epoch_ms = epoch_ms;
  *out = l;
  return SFC_OK;
}

static int format_unit(int64_t unit_us, char *buf, size_t cap) {
  if (unit_us % 1000000 == 0)
    return snprintf(buf, cap, "%llds", (long long)(unit_us / 1000000));
  if (unit_us % 1000 == 0)
    return snprintf(buf, cap, "%lldms", (long long)(unit_us / 1000));
  return snprintf(buf, cap, "%lldus", (long long)unit_us);
}

size_t sfc_layout_spec(const sfc_layout *layout, char *buf, size_t cap) {
  size_t n = 0;
  char tmp[SFC_SPEC_MAX];
  for (unsigned i = 0; i < layout->field_count; i++) {
    const sfc_field *f = &layout->fields[i];
    int k = snprintf(tmp + n, sizeof tmp - n, "%s%s:%u", i ? "," : "", f->name,
                     f->bits);
    n += (size_t)k;
    if (f->kind == SFC_FIELD_TIME) {
      tmp[n++] = '@';
      n += (size_t)format_unit(layout->unit_us, tmp + n, sizeof tmp - n);
    }
  }
  tmp[n] = '\0';
  if (cap) snprintf(buf, cap, "%s", tmp);
  return n;
}

int sfc_layout_field_index(const sfc_layout *layout, const char *name) {
  for (unsigned i = 0; name && i < layout->field_count; i++)
    if (strcmp(layout->fields[i].name, name) == 0) return (int)i;
  return -1;
}

void sfc_layout_describe(const sfc_layout *layout, sfc_layout_info *out) {
  const sfc_field *seq = &layout->fields[layout->seq_index];
  unsigned node_bits = 0;
  for (unsigned i = 0; i < layout->field_count; i++)
    if (layout->fields[i].kind == SFC_FIELD_NODE)
      node_bits += layout->fields[i].bits;
  out->ids_per_second =
      ((double)seq->max + 1.0) * (1e6 / (double)layout->unit_us);
  out->node_capacity = pow2(node_bits);
  int64_t end_us;
  out->time_end_ms = time_end_us(layout->epoch_ms, &layout->fields[0],
                                 layout->unit_us, &end_us)
                         ? end_us / 1000
                         : INT64_MAX / 1000;
  out->max_id = layout->total_bits == 64
                    ? UINT64_MAX
                    : (UINT64_C(1) << layout->total_bits) - 1;
}

const char *sfc_field_kind_name(sfc_field_kind kind) {
  static const char *const names[] = {"time", "seq", "clock", "node"};
  return (unsigned)kind < 4 ? names[kind] : "unknown";
}
