/* libFuzzer harness: the layout parser and the small text parsers.
 *
 * Input: "SPEC\nEPOCH" (the epoch part is optional). The spec is parsed
 * with the parsed epoch (or the default preset's epoch when the epoch text
 * is rejected). A layout that parses must round-trip through its canonical
 * spec to the same layout, and describe itself without trapping. */
#define _GNU_SOURCE
#include "fuzz.h"
#include "snowflake_c.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_error(sfc_status st, const sfc_error *err) {
  CHECK(err->status == st);
  size_t n = strnlen(err->message, SFC_MESSAGE_MAX);
  CHECK(n > 0 && n < SFC_MESSAGE_MAX);
}

static int same_layout(const sfc_layout *a, const sfc_layout *b) {
  if (a->field_count != b->field_count || a->total_bits != b->total_bits ||
      a->epoch_ms != b->epoch_ms || a->unit_us != b->unit_us ||
      a->seq_index != b->seq_index || a->clock_index != b->clock_index)
    return 0;
  for (unsigned i = 0; i < a->field_count; i++)
    if (strcmp(a->fields[i].name, b->fields[i].name) != 0 ||
        a->fields[i].kind != b->fields[i].kind ||
        a->fields[i].bits != b->fields[i].bits ||
        a->fields[i].shift != b->fields[i].shift ||
        a->fields[i].max != b->fields[i].max)
      return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char *epoch_text = strchr(text, '\n');
  if (epoch_text) *epoch_text++ = '\0';

  sfc_error err;
  int64_t epoch = 1704067200000;
  if (epoch_text) {
    int64_t e = 0;
    sfc_status st = sfc_epoch_parse(epoch_text, &e, &err);
    if (st == SFC_OK) {
      epoch = e;
      char iso[SFC_ISO_MAX];
      size_t n = sfc_format_iso(e, iso, sizeof iso);
      CHECK(n > 0 && n < sizeof iso);
      int64_t back = 0;
      /* The ISO form of a parsed epoch parses back to the same instant. */
      if (e >= 0 && e < INT64_C(253402300800000)) {
        CHECK(sfc_epoch_parse(iso, &back, &err) == SFC_OK);
        CHECK(back == e);
      }
    } else {
      check_error(st, &err);
    }
  }

  sfc_layout layout;
  memset(&layout, 0xa5, sizeof layout);
  sfc_status st = sfc_layout_parse(text, epoch, &layout, &err);
  if (st == SFC_OK) {
    CHECK(layout.field_count >= 2 && layout.field_count <= SFC_MAX_FIELDS);
    CHECK(layout.total_bits <= 64);
    CHECK(layout.time_index == 0);
    CHECK(layout.fields[0].kind == SFC_FIELD_TIME);
    unsigned sum = 0;
    for (unsigned i = 0; i < layout.field_count; i++) {
      const sfc_field *f = &layout.fields[i];
      CHECK(f->bits >= 1 && f->bits <= 64);
      CHECK(f->max ==
            (f->bits == 64 ? UINT64_MAX : (UINT64_C(1) << f->bits) - 1));
      CHECK(sfc_layout_field_index(&layout, f->name) == (int)i);
      sum += f->bits;
    }
    CHECK(sum == layout.total_bits);
    char spec[SFC_SPEC_MAX];
    size_t n = sfc_layout_spec(&layout, spec, sizeof spec);
    CHECK(n < sizeof spec);
    sfc_layout again;
    CHECK(sfc_layout_parse(spec, epoch, &again, &err) == SFC_OK);
    CHECK(same_layout(&layout, &again));
    sfc_layout_info info;
    sfc_layout_describe(&layout, &info);
    CHECK(info.ids_per_second > 0);
    CHECK(info.time_end_ms >= layout.epoch_ms);
    /* A spec that does not fit the buffer reports the length it needs. */
    char tiny[8];
    CHECK(sfc_layout_spec(&layout, tiny, sizeof tiny) == n);
    CHECK(strnlen(tiny, sizeof tiny) < sizeof tiny);
  } else {
    CHECK(st == SFC_INVALID_LAYOUT);
    check_error(st, &err);
  }

  /* The other small parsers take the same text. */
  sfc_layout preset;
  st = sfc_layout_preset(text, &preset, &err);
  if (st != SFC_OK) check_error(st, &err);
  sfc_value as_text = {SFC_TYPE_TEXT, 0, 0, 0, text, strlen(text), 0};
  sfc_node_value node;
  st = sfc_node_value_set(&node, "worker", &as_text, &err);
  if (st != SFC_OK)
    check_error(st, &err);
  else
    CHECK(node.value >= 0 && (unsigned)node.source <= SFC_SOURCE_LEASE);
  /* Every option takes the same text, as the CLI hands it over; a choice
   * it takes is the one its table names so. */
  const sfc_option_info *o;
  for (size_t i = 0; (o = sfc_option_at(i)); i++) {
    sfc_options opts;
    sfc_options_init(&opts);
    st = sfc_options_set(&opts, o->name, strlen(o->name), &as_text, &err);
    if (st != SFC_OK) {
      check_error(st, &err);
    } else if (o->type == SFC_TYPE_CHOICE) {
      sfc_value got;
      CHECK(sfc_options_get(&opts, o->option, &got) == SFC_OK &&
            got.type == SFC_TYPE_TEXT && strcmp(got.text, text) == 0);
    }
  }
  /* The same text as an ID in every encoding: one that parses formats back
   * (shortest, fixed and the default) to text that parses to the same ID;
   * the default is one of the other two, by the row's fixed_by_default. */
  for (int e = 0; e < SFC_ENCODING_COUNT; e++) {
    uint64_t id, again;
    char form[SFC_ENCODED_MAX];
    st = sfc_id_parse(text, strlen(text), (sfc_encoding)e, &id, &err);
    if (st != SFC_OK) {
      check_error(st, &err);
      continue;
    }
    size_t n = sfc_id_format(id, (sfc_encoding)e, SFC_FORMAT_SHORTEST, form,
                             sizeof form);
    CHECK(n > 0 && n <= strlen(text));
    CHECK(sfc_id_parse(form, n, (sfc_encoding)e, &again, &err) == SFC_OK);
    CHECK(again == id);
    char fixed[SFC_ENCODED_MAX], dflt[SFC_ENCODED_MAX];
    size_t nf = sfc_id_format(id, (sfc_encoding)e, SFC_FORMAT_FIXED, fixed,
                              sizeof fixed);
    CHECK(nf == sfc_encoding_at((size_t)e)->width);
    CHECK(sfc_id_parse(fixed, nf, (sfc_encoding)e, &again, &err) == SFC_OK);
    CHECK(again == id);
    size_t nd = sfc_id_format(id, (sfc_encoding)e, 0, dflt, sizeof dflt);
    CHECK(strcmp(dflt,
                 sfc_encoding_at((size_t)e)->fixed_by_default ? fixed : form) ==
          0);
    CHECK(nd == strlen(dflt));
    CHECK(sfc_id_format(id, (sfc_encoding)e,
                        SFC_FORMAT_SHORTEST | SFC_FORMAT_FIXED, dflt,
                        sizeof dflt) == 0);
  }
  /* NULL err is allowed everywhere. */
  sfc_layout_parse(text, epoch, &layout, NULL);
  sfc_epoch_parse(text, &epoch, NULL);
  free(text);
  return 0;
}
