/* The state file of a node value: the layout, epoch and node it belongs
 * to, the high-water mark, the clock value in force and the clock table,
 * with a checksum. Replaced whole, never edited: a crash leaves either the
 * old state or the new. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define STATE_MAGIC "snowflake-c state 1"
#define STATE_MAX 8192

static size_t format_state(const sfc_generator *g, int64_t mark, uint64_t clock,
                           char *buf, size_t cap) {
  char spec[SFC_SPEC_MAX], node[SFC_NODE_TEXT_MAX];
  sfc_layout_spec(&g->layout, spec, sizeof spec);
  sfc_node_text(&g->layout, &g->node, node, sizeof node);
  size_t n = (size_t)snprintf(buf, cap,
                              STATE_MAGIC "\nlayout %s\nepoch %lld\nnode %s\n",
                              spec, (long long)g->layout.epoch_ms, node);
  sfc_saved s;
  memcpy(s.last, g->last, sizeof s.last);
  s.mark = mark;
  s.clock = clock;
  n += sfc_saved_print(&s, g->pack.clock_max, buf + n, cap - n);
  return sfc_check_append(buf, n, cap);
}

sfc_status sfc_state_file_write_at(sfc_generator *g, const sfc_dir *dir,
                                   int64_t mark, uint64_t clock,
                                   sfc_error *err) {
  char buf[STATE_MAX];
  sfc_file_name f;
  size_t n = format_state(g, mark, clock, buf, sizeof buf);
  sfc_state_file_name(g, ".state", &f);
  return sfc_file_replace_at(dir, f.name, f.path, buf, n, &g->state.state_id,
                             err);
}

sfc_status sfc_state_file_write(sfc_generator *g, int64_t mark, uint64_t clock,
                                sfc_error *err) {
  return sfc_state_file_write_at(g, &g->state.folder, mark, clock, err);
}

static sfc_status corrupt(sfc_error *err, const char *path, const char *why) {
  return sfc_fail(err, SFC_STATE_ERROR,
                  "state file %s is unreadable (%s); it guards against "
                  "duplicate IDs after a restart: restore it, or delete it "
                  "only once the clock is surely past every ID this node "
                  "issued",
                  path, why);
}

/* Reads the state file `name` of the folder; a missing one is a new node
 * value (SFC_OK, *saved untouched). */
static sfc_status read_at(const sfc_dir *dir, const char *name,
                          const char *path, const sfc_layout *layout,
                          const char *node_text, sfc_saved *saved,
                          sfc_error *err) {
  char buf[STATE_MAX + 1];
  size_t n, body, end;
  bool missing;
  sfc_status st = sfc_file_read_at(dir, name, path, buf, sizeof buf, &n,
                                   &missing, NULL, err);
  if (st != SFC_OK || missing) return st; /* missing: a new node value */
  if (n >= STATE_MAX) return corrupt(err, path, "too large");
  const char *why = sfc_check_verify(buf, n, &body, &end);
  if (why) return corrupt(err, path, why);
  if (end != n) return corrupt(err, path, "text after the checksum");
  if (strncmp(buf, STATE_MAGIC "\n", strlen(STATE_MAGIC) + 1) != 0)
    return corrupt(err, path, "not a snowflake-c state file");

  /* One "key value" per line, in a fixed order, parsed strictly: the
   * checksum proves the file intact, not that it was written by us. */
  buf[body] = '\0';
  char *p = buf + strlen(STATE_MAGIC) + 1;
  const char *spec = sfc_text_line(&p, "layout");
  const char *epoch_text = spec ? sfc_text_line(&p, "epoch") : NULL;
  const char *node = epoch_text ? sfc_text_line(&p, "node") : NULL;
  char want_spec[SFC_SPEC_MAX];
  long long epoch;
  if (!node || !sfc_text_number(epoch_text, INT64_MIN, &epoch))
    return corrupt(err, path, "malformed contents");
  sfc_layout_spec(layout, want_spec, sizeof want_spec);
  if (strcmp(spec, want_spec) != 0 || epoch != layout->epoch_ms ||
      strcmp(node, node_text) != 0)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state file %s belongs to layout %.64s, epoch %lld, "
                    "node '%.40s' — not to layout %s, epoch %lld, node '%s': "
                    "give each layout its own state_dir",
                    path, spec, epoch, node, want_spec,
                    (long long)layout->epoch_ms, node_text);
  uint64_t clock_max =
      layout->clock_index >= 0 ? layout->fields[layout->clock_index].max : 0;
  uint64_t time_max = layout->fields[0].max;
  why = sfc_saved_parse(p, clock_max, time_max, saved);
  return why ? corrupt(err, path, why) : SFC_OK;
}

sfc_status sfc_state_file_read(const sfc_generator *g, sfc_saved *saved,
                               sfc_error *err) {
  sfc_file_name f;
  char text[SFC_NODE_TEXT_MAX];
  sfc_state_file_name(g, ".state", &f);
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  sfc_saved_clear(saved);
  return read_at(&g->state.folder, f.name, f.path, &g->layout, text, saved,
                 err);
}
