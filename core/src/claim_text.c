/* A hand-over record's text: the layout, epoch and shape of the generator
 * that wrote it, its process, open or closed, its rank while it takes the
 * claim, then what it hands over (saved.c), with a checksum; padded to the
 * claim's fixed size. Read as hostile input: parsed strictly, a number out
 * of range is refused. */
#include "internal.h"

#include "claim_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_MAGIC "snowflake-c hand-over 2\n"

/* The places of the time, clock and sequence fields: records of the same
 * shape compare in tick numbers. */
static size_t shape_text(const sfc_layout *l, char *buf, size_t cap) {
  const sfc_field *t = &l->fields[0], *s = &l->fields[l->seq_index];
  const sfc_field *c = l->clock_index >= 0 ? &l->fields[l->clock_index] : NULL;
  return (size_t)snprintf(buf, cap, "%u@%u %u@%u %u@%u", t->bits, t->shift,
                          c ? c->bits : 0, c ? c->shift : 0, s->bits, s->shift);
}

/* Padded with newlines: a write over the same blocks cannot fail for want
 * of space. */
size_t sfc_record_text(const sfc_claim *c, const sfc_generator *g,
                       const sfc_saved *s, bool closed, char *buf, size_t cap) {
  char spec[SFC_SPEC_MAX], shape[64];
  sfc_layout_spec(&g->layout, spec, sizeof spec);
  shape_text(&g->layout, shape, sizeof shape);
  size_t n = (size_t)snprintf(
      buf, cap,
      "%slayout %s\nepoch %lld\nshape %s\npid %ld\nstate %s\ntaking "
      "%016llx\n",
      RECORD_MAGIC, spec, (long long)g->layout.epoch_ms, shape, sfc_os_pid(),
      closed ? "closed" : "open", (unsigned long long)c->taking);
  if (n >= cap) return 0;
  n += sfc_saved_print(s, g->pack.clock_max, buf + n, cap - n);
  n = n < cap ? sfc_check_append(buf, n, cap) : 0;
  if (!n || n > c->size) return 0;
  memset(buf + n, '\n', c->size - n);
  return c->size;
}

size_t sfc_record_size(const sfc_generator *g) {
  char spec[SFC_SPEC_MAX];
  size_t spec_len = sfc_layout_spec(&g->layout, spec, sizeof spec);
  size_t n =
      strlen(RECORD_MAGIC) + spec_len + 256 + (g->pack.clock_max + 1) * 21 + 64;
  return n < SFC_RECORD_MAX ? n : SFC_RECORD_MAX;
}

const char *sfc_record_parse(char *buf, size_t n, sfc_record *out) {
  size_t body, end;
  const char *why = sfc_check_verify(buf, n, &body, &end);
  if (why) return why;
  if (strspn(buf + end, "\n") != n - end) return "text after the checksum";
  if (strncmp(buf, RECORD_MAGIC, strlen(RECORD_MAGIC)) != 0)
    return "not a snowflake-c hand-over record";
  buf[body] = '\0';
  char *p = buf + strlen(RECORD_MAGIC);
  const char *spec = sfc_text_line(&p, "layout");
  const char *epoch = spec ? sfc_text_line(&p, "epoch") : NULL;
  const char *shape = epoch ? sfc_text_line(&p, "shape") : NULL;
  const char *pid = shape ? sfc_text_line(&p, "pid") : NULL;
  const char *state = pid ? sfc_text_line(&p, "state") : NULL;
  /* "taking": not in the records of the first builds, which are settled. */
  const char *taking = state ? sfc_text_line(&p, "taking") : NULL;
  long long pid_n;
  char tail;
  if ((taking &&
       (strlen(taking) != 16 || strspn(taking, "0123456789abcdef") != 16)) ||
      !sfc_text_number(epoch, INT64_MIN, &out->epoch) ||
      !sfc_text_number(pid, 0, &pid_n) ||
      sscanf(shape, "%u@%u %u@%u %u@%u%c", &out->shape[0], &out->shape[1],
             &out->shape[2], &out->shape[3], &out->shape[4], &out->shape[5],
             &tail) != 6 ||
      (strcmp(state, "open") != 0 && strcmp(state, "closed") != 0))
    return "malformed contents";
  if (out->shape[0] == 0 || out->shape[0] + out->shape[1] > 64 ||
      out->shape[2] > SFC_MAX_CLOCK_BITS || out->shape[4] > 64 ||
      out->shape[3] > 63 || out->shape[5] > 63)
    return "malformed contents";
  snprintf(out->spec, sizeof out->spec, "%s", spec);
  out->pid = (long)pid_n;
  out->open = strcmp(state, "open") == 0;
  out->taking = taking ? strtoull(taking, NULL, 16) : 0;
  /* Its own clock table's width: another shape may have another. */
  const uint64_t its_clock_max =
      out->shape[2] ? (UINT64_C(1) << out->shape[2]) - 1 : 0;
  const uint64_t time_max =
      out->shape[0] >= 64 ? UINT64_MAX : (UINT64_C(1) << out->shape[0]) - 1;
  why = sfc_saved_parse(p, its_clock_max, time_max, &out->saved);
  if (why) return why;
  out->saved.unclean = out->open;
  return NULL;
}
