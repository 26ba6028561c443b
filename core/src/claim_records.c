/* The hand-over records of the claim, in the host-wide records folder
 * (/dev/shm): one per pattern, layout and user, written ahead. At
 * creation, before any ID, it says how far the holder may issue (a mark a
 * few ticks ahead, moved by the hot path's slow path when it gets there; a
 * clock value's table before every clock bump), so that a holder ended by
 * SIGKILL, SIGTERM, a pipe closed under it or a crash hands over as a
 * clean close does. The holder keeps its record locked while it lives — a
 * second holder that cannot see the claim's name (another network
 * namespace) still finds it live — and a clean close writes the exact last
 * tick. A successor reads every record that can meet its pattern, merges
 * them by clock value (saved.c) and starts after all of them: in tick
 * numbers where the layouts agree on the places of time, clock and
 * sequence, else above the largest integer the other may have issued. A
 * record of another user can only make it start later or refuse. */
#include "internal.h"

#include "claim_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void record_path(const sfc_claim *c, const char *name, char *buf,
                        size_t cap) {
  snprintf(buf, cap, "%s/%s", c->records_path, name);
}

/* A record's tick in force for clock value c: its mark joins its value. */
static int64_t bound_of(const sfc_saved *s, uint64_t c) {
  int64_t t = s->last[c];
  if (c == s->clock && s->mark > t) t = s->mark;
  return t;
}

/* What a record of another layout hands over. Where its integers and ours
 * meet at the same moments — one epoch, one time unit, the time field in
 * one place (the rest may differ: a clock field where ours has a node
 * field) — ours starts after the end of its latest tick, under every clock
 * value. A layout that meets ours at other moments (another epoch or unit)
 * would repeat its IDs whatever it was handed: the claim keeps the two
 * from running at once, and their use one after the other is the
 * operator's (the README says so). */
static sfc_status merge_other(const sfc_generator *g, const sfc_record *r,
                              sfc_saved *into) {
  sfc_layout theirs;
  if (sfc_layout_parse(r->spec, r->epoch, &theirs, NULL) != SFC_OK)
    return SFC_STATE_ERROR;
  if (theirs.epoch_ms != g->layout.epoch_ms ||
      theirs.unit_us != g->layout.unit_us ||
      theirs.fields[0].shift != g->layout.fields[0].shift)
    return SFC_OK;
  int64_t latest = SFC_NEVER;
  for (uint64_t c = 0; c < SFC_CLOCK_VALUES; c++) {
    const int64_t t = bound_of(&r->saved, c);
    if (t > latest) latest = t;
  }
  if (latest < 0) return SFC_OK;
  int64_t end_us, ours;
  if (!sfc_mul_i64(latest + 1, theirs.unit_us, &end_us) ||
      !sfc_add_i64(end_us, theirs.epoch_ms * 1000 - 1 - g->epoch_us, &end_us))
    return SFC_STATE_ERROR;
  if (end_us < 0) return SFC_OK;
  ours = end_us / g->unit_us;
  if ((uint64_t)ours > g->pack.time_max) ours = (int64_t)g->pack.time_max;
  sfc_saved s;
  sfc_saved_clear(&s);
  s.unclean = r->open;
  s.mark = ours;
  for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
    s.last[c] = ours;
  sfc_saved_merge(into, &s);
  return SFC_OK;
}

/* Reads every record that can meet our pattern (every user's, every
 * layout's), into r->into; a live one (locked by its holder) whose
 * integers from now on can meet ours refuses us. */
typedef struct reading {
  sfc_claim *claim;
  const sfc_generator *g;
  sfc_saved *into;
  bool *held;
  sfc_holder *who;
  sfc_status status;
  bool mine_read; /* ours was read first */
  sfc_error *err;
} reading;

/* "snowflake-c-<mask>.<value>.<layout>.<user>": false when `name` is not
 * a record's (a renewal's new file, a stranger's). */
static bool record_name_parts(const char *name, uint64_t *mask, uint64_t *value,
                              const char **tag) {
  enum { LAYOUT = SFC_PATTERN_HEX + 1, TAG = LAYOUT + 17 };
  const char *hex = name + strlen(SFC_RECORD_PREFIX);
  char pattern[SFC_PATTERN_HEX + 1];
  uint64_t unused;
  if (strlen(hex) < TAG + 2 || hex[LAYOUT - 1] != '.' || hex[TAG - 1] != '.' ||
      strspn(hex + LAYOUT, "0123456789abcdef") != 16)
    return false;
  snprintf(pattern, sizeof pattern, "%.*s", SFC_PATTERN_HEX, hex);
  if (!sfc_pattern_parse(pattern, mask, value, &unused)) return false;
  *tag = hex + TAG;
  return ((*tag)[0] == 'u' || (*tag)[0] == 's') && (*tag)[1] &&
         strspn(*tag + 1, "0123456789abcdef") == strlen(*tag + 1);
}

/* Two that take records at once, in namespaces whose claims do not see
 * each other, each write theirs (ranked at random) before they read the
 * folder, so at least one finds the other: one that finds another taking
 * it, ranked before it, gives way; one that finds one ranked after it
 * waits, 200 ms at most, until that one has given way (its lock let go:
 * true, *live false) or has finished taking (true, *live still true). The
 * record as it is then, in buf. False: still taking; it is held. */
static bool settled(sfc_claim *c, const char *name, const char *path, char *buf,
                    size_t cap, size_t *n, bool *live, char *owner,
                    sfc_error *err) {
  for (int i = 0; i < 200; i++) {
    sfc_pause(1000);
    bool missing = false;
    sfc_record rec;
    if (sfc_file_lock_held_at(&c->records, name, path, live, err) != SFC_OK ||
        sfc_file_read_at(&c->records, name, path, buf, cap, n, &missing, owner,
                         err) != SFC_OK)
      return false;
    if (missing) {
      *live = false;
      *n = 0;
      return true;
    }
    if (!*live || (*n && !sfc_record_parse(buf, *n, &rec) && !rec.taking)) {
      /* sfc_record_parse wrote in buf: read it again for the caller. */
      return sfc_file_read_at(&c->records, name, path, buf, cap, n, &missing,
                              owner, err) == SFC_OK &&
             !missing;
    }
  }
  return false;
}

static void read_record(void *ctx, const char *name) {
  reading *r = ctx;
  sfc_claim *c = r->claim;
  uint64_t mask, value;
  const char *tag;
  if (r->status != SFC_OK || *r->held ||
      !record_name_parts(name, &mask, &value, &tag) ||
      !sfc_pattern_meets(mask, value, c->mask, c->value))
    return;
  const bool mine = strcmp(name, c->record_name) == 0;
  if (mine && r->mine_read) return;
  char buf[SFC_RECORD_MAX + 1], owner[SFC_TAG_MAX], path[200];
  size_t n;
  bool missing = false, live = false;
  record_path(c, name, path, sizeof path);
  if (mine) {
    /* Ours: we hold its lock already. */
    r->status = sfc_file_read_fd(c->record, path, buf, sizeof buf, &n, r->err);
    snprintf(owner, sizeof owner, "%s", c->user);
  } else {
    r->status = sfc_file_lock_held_at(&c->records, name, path, &live, r->err);
    if (r->status != SFC_OK) return;
    r->status = sfc_file_read_at(&c->records, name, path, buf, sizeof buf, &n,
                                 &missing, owner, r->err);
    if (r->status != SFC_OK || missing) return;
  }
  sfc_record rec;
  const char *why = n ? sfc_record_parse(buf, n, &rec) : "empty";
  /* A live holder that has just taken its record writes it a moment
   * later: read it again, 20 ms at most, to learn its layout. */
  for (int i = 0; live && why && i < 20; i++) {
    sfc_pause(1000);
    if (sfc_file_read_at(&c->records, name, path, buf, sizeof buf, &n, &missing,
                         owner, r->err) != SFC_OK ||
        missing)
      break;
    why = n ? sfc_record_parse(buf, n, &rec) : "empty";
  }
  /* One taking it beside us that ranks after us defers to us, unless it
   * read the folder before our record was there: wait until it has made
   * up its mind. */
  if (live && !why && rec.taking > c->taking &&
      settled(c, name, path, buf, sizeof buf, &n, &live, owner, r->err)) {
    why = n ? sfc_record_parse(buf, n, &rec) : "empty";
    if (!live && n == 0) return;
  }
  if (live) {
    /* A live generator that can meet ours, which the claim's name did not
     * show (another network namespace, or a pattern the OS does not list)
     * — unless its integers from now on are not ours. */
    sfc_layout theirs;
    if (!why &&
        sfc_layout_parse(rec.spec, rec.epoch, &theirs, NULL) == SFC_OK &&
        !sfc_pattern_overlap(sfc_pattern_lowest(&theirs), sfc_pattern_top(mask),
                             c->lowest, sfc_pattern_top(c->mask)))
      return;
    *r->held = true;
    c->contested = !why && rec.taking != 0; /* see sfc_claim_take */
    r->who->pid = why ? 0 : rec.pid;
    r->who->uid = tag[0] == 'u' ? strtoll(tag + 1, NULL, 10) : -1;
    snprintf(c->other, sizeof c->other, "%.96s (epoch %lld)",
             why ? "unknown layout" : rec.spec, why ? 0LL : rec.epoch);
    return;
  }
  /* An empty one was created a moment ago, or by a holder that died then. */
  if (r->status != SFC_OK || n == 0) return;
  /* Only the words of the user the name gives count; under our own name,
   * another's words are a squatter's. */
  if (strcmp(owner, "*") != 0 && strcmp(owner, tag) != 0) {
    if (strcmp(tag, c->user) == 0)
      r->status = sfc_fail(r->err, SFC_STATE_ERROR,
                           "hand-over record %s is not this user's (%s): "
                           "another user squats its name; root can remove it",
                           path, owner[0] ? owner : "open to others' writes");
    return;
  }
  if (why) {
    r->status = sfc_fail(
        r->err, SFC_STATE_ERROR,
        "hand-over record %s is unreadable (%s): it keeps the last IDs of a "
        "node value that can meet this one; remove it (as its owner %s, or "
        "root) once the clock is surely past them",
        path, why, owner[0] ? owner : "user");
    return;
  }
  char layout_id[17];
  snprintf(layout_id, sizeof layout_id, "%.16s",
           name + strlen(SFC_RECORD_PREFIX) + 34);
  if (strcmp(layout_id, c->layout_id) == 0)
    sfc_saved_merge(r->into, &rec.saved); /* our layout: tick for tick */
  else if (merge_other(r->g, &rec, r->into) != SFC_OK)
    r->status = sfc_fail(r->err, SFC_STATE_ERROR,
                         "hand-over record %s is unreadable (its layout %.64s "
                         "is not one): remove it (as its owner, or root)",
                         path, rec.spec);
}

/* The layout of a live holder, from its record, for the refusal. */
typedef struct finding {
  sfc_dir *records;
  const char *path;
  char *out;
  size_t cap;
} finding;

static void find_layout(void *ctx, const char *name) {
  finding *f = ctx;
  char buf[SFC_RECORD_MAX + 1], owner[SFC_TAG_MAX], path[200];
  size_t n;
  bool missing = false, live = false;
  sfc_record rec;
  if (f->out[0]) return;
  snprintf(path, sizeof path, "%s/%s", f->path, name);
  if (sfc_file_lock_held_at(f->records, name, path, &live, NULL) != SFC_OK ||
      !live ||
      sfc_file_read_at(f->records, name, path, buf, sizeof buf, &n, &missing,
                       owner, NULL) != SFC_OK ||
      missing || !n || sfc_record_parse(buf, n, &rec))
    return;
  snprintf(f->out, f->cap, "%.96s (epoch %lld)", rec.spec, rec.epoch);
}

void sfc_claim_holder_layout(const char *pattern, char *out, size_t cap) {
  sfc_dir records;
  char path[64], prefix[64];
  out[0] = '\0';
  if (sfc_records_dir_open(&records, path, sizeof path, NULL) != SFC_OK) return;
  snprintf(prefix, sizeof prefix, SFC_RECORD_PREFIX "%.*s.", SFC_PATTERN_HEX,
           pattern);
  finding f = {&records, path, out, cap};
  sfc_dir_each(&records, prefix, find_layout, &f, NULL);
  sfc_fd_close(records.fd);
}

sfc_status sfc_claim_records_open(sfc_claim *c, const sfc_generator *g,
                                  sfc_saved *handed, bool *held,
                                  sfc_holder *who, sfc_error *err) {
  sfc_status st = sfc_records_dir_open(&c->records, c->records_path,
                                       sizeof c->records_path, err);
  if (st != SFC_OK) return st;
  sfc_os_user_tag(c->user, sizeof c->user);
  /* One record per pattern, layout and user: what it says is in that
   * layout's ticks. */
  char spec[SFC_SPEC_MAX];
  size_t len = sfc_layout_spec(&g->layout, spec, sizeof spec);
  len += (size_t)snprintf(spec + len, sizeof spec - len, "@%lld",
                          (long long)g->layout.epoch_ms);
  snprintf(c->layout_id, sizeof c->layout_id, "%016llx",
           (unsigned long long)sfc_fnv1a(SFC_FNV_OFFSET, spec, len));
  snprintf(c->record_name, sizeof c->record_name, SFC_RECORD_PREFIX "%s.%s.%s",
           c->hex, c->layout_id, c->user);
  char path[200];
  record_path(c, c->record_name, path, sizeof path);
  /* A lock taken on a file renewed meanwhile (a holder that put a new one
   * in its place, then let go of the old) guards nothing: take it again. */
  for (int attempt = 0;; attempt++) {
    st = sfc_file_open_lock(&c->records, c->record_name, path, &c->record, err);
    if (st != SFC_OK) return st;
    /* Another's test of the lock (sfc_file_lock_held_at) holds it for a
     * moment; a holder, for good. */
    st = sfc_file_try_lock(c->record, path, held, err);
    for (int busy = 1; st == SFC_OK && *held && busy < 5; busy++) {
      sfc_pause(1000);
      st = sfc_file_try_lock(c->record, path, held, err);
    }
    if (st != SFC_OK || *held ||
        sfc_file_is_at(&c->records, c->record_name, c->record))
      break;
    sfc_fd_close(c->record);
    c->record = SFC_NO_FD;
    if (attempt == 16)
      return sfc_fail(err, SFC_STATE_ERROR,
                      "hand-over record %s keeps being replaced while it is "
                      "taken",
                      path);
  }
  if (st == SFC_OK && *held) {
    /* A live holder of our user that the name did not show. */
    char buf[SFC_RECORD_MAX + 1];
    size_t n;
    sfc_record rec;
    who->uid = sfc_os_uid();
    who->pid = 0;
    if (sfc_file_read_fd(c->record, path, buf, sizeof buf, &n, NULL) ==
            SFC_OK &&
        n && sfc_record_parse(buf, n, &rec) == NULL) {
      who->pid = rec.pid;
      snprintf(c->other, sizeof c->other, "%.96s (epoch %lld)", rec.spec,
               rec.epoch);
    }
  }
  if (st != SFC_OK || *held) return st;
  c->size = sfc_record_size(g);
  char text[SFC_RECORD_MAX];
  size_t n;
  /* Ours first, and what we are written in it before we look at others':
   * two that take records at once each learn the other's layout. */
  reading r = {c, g, handed, held, who, SFC_OK, false, err};
  read_record(&r, c->record_name);
  if (r.status != SFC_OK) return r.status;
  r.mine_read = true;
  n = sfc_record_text(c, g, handed, false, text, sizeof text);
  if (!n)
    return sfc_fail(err, SFC_STATE_ERROR, "hand-over record %s: too large",
                    path);
  st = sfc_file_overwrite(c->record, text, n, path, err);
  if (st == SFC_OK)
    st = sfc_dir_each(&c->records, SFC_RECORD_PREFIX, read_record, &r, err);
  if (st == SFC_OK) st = r.status;
  if (st != SFC_OK || *held) return st;
  n = sfc_record_text(c, g, handed, false, text, sizeof text);
  st = sfc_file_renew_locked(&c->records, c->record_name, path, &c->record,
                             text, n, err);
  if (st == SFC_OK && g->shared)
    st = sfc_file_open_lock(&c->records, c->record_name, path, &c->record_write,
                            err);
  return st;
}

sfc_status sfc_claim_records_settle(sfc_claim *c, const sfc_generator *g,
                                    sfc_error *err) {
  char buf[SFC_RECORD_MAX + 1], text[SFC_RECORD_MAX];
  size_t n;
  sfc_record rec;
  c->taking = 0;
  if (c->record == SFC_NO_FD) return SFC_OK;
  sfc_status st =
      sfc_file_read_fd(c->record, c->record_name, buf, sizeof buf, &n, err);
  if (st != SFC_OK) return st;
  if (sfc_record_parse(buf, n, &rec) != NULL)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "the hand-over record %s changed under its holder",
                    c->record_name);
  /* What it says, rank aside: written over the same blocks. */
  n = sfc_record_text(c, g, &rec.saved, !rec.open, text, sizeof text);
  if (!n)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "the hand-over record of %s cannot be written", c->hex);
  return sfc_file_overwrite(c->record, text, n, c->record_name, err);
}

/* A shared generator's forked process moves the record only while its
 * creator, which alone holds the claim, lives: once it is gone a new holder
 * may start after the record's mark. Asked before the write and after it
 * (a creator that died meanwhile may have been followed by a holder that
 * read the record before the write). */
static sfc_status creator_alive(const sfc_generator *g, sfc_error *err) {
  if (!g->shared || g->pid == sfc_os_pid() ||
      sfc_os_process_token(g->pid) == g->creator_token)
    return SFC_OK;
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "the shared generator's creator, process %ld, is gone, and "
                  "its claim of the node value with it: this process issues "
                  "no more IDs from it",
                  g->pid);
}

sfc_status sfc_claim_write(sfc_claim *c, const sfc_generator *g,
                           const sfc_saved *s, bool closed, sfc_error *err) {
  char text[SFC_RECORD_MAX];
  size_t n = sfc_record_text(c, g, s, closed, text, sizeof text);
  sfc_fd fd = c->record_write != SFC_NO_FD ? c->record_write : c->record;
  if (!n || fd == SFC_NO_FD)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "the hand-over record of %s cannot be written", c->hex);
  sfc_status st = creator_alive(g, err);
  if (st != SFC_OK) return st;
  st = sfc_file_overwrite(fd, text, n, c->record_name, err);
  return st == SFC_OK ? creator_alive(g, err) : st;
}
