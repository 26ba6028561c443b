/* The host-wide claim of a node value.
 *
 * Two live generators on one host that could issue the same ID must never
 * both run. What decides the IDs is the ID space — the epoch, the time
 * unit, the places and widths of the time, clock and sequence fields — and
 * the node bits in it, so that is what is claimed: one name per ID space
 * and node bits, hashed, taken by every generator (guard-only, state_dir
 * and pool alike) whatever its folders, user, environment or field names.
 * The OS holds the name for the holder and lets go of it when the process
 * dies (claim_os_*.c: an abstract socket on Linux, a named section on
 * Windows, a lock file where there is neither). Trouble taking it never
 * lets a generator start unguarded: creation fails and says why.
 *
 * A value given back before the wall clock has passed its last ID hands
 * that over: before letting go of the name, the holder writes a record —
 * its last tick, the clock value in force and the per-clock table — into
 * the host-wide records folder (records_dir_open), under a name of its own
 * user; whoever takes the name next reads every record of the key there
 * and starts after them. A record is judged on the wall clock: once the
 * clock has passed every tick in it, it is spent. Each record file is
 * written full-size when its holder takes the name, so that handing over
 * overwrites blocks it already has and cannot fail for want of space. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define RECORD_MAGIC "snowflake-c hand-over 1\n"

/* What decides the IDs, in words: never names, folders or users. */
static size_t key_text(const sfc_layout *l, uint64_t bits, char *buf,
                       size_t cap) {
  const sfc_field *t = &l->fields[0], *s = &l->fields[l->seq_index];
  uint64_t mask = 0;
  for (unsigned i = 1; i < l->field_count; i++)
    if ((int)i != l->seq_index && (int)i != l->clock_index)
      mask |= l->fields[i].max << l->fields[i].shift;
  int n =
      snprintf(buf, cap, "epoch %lld ms\nunit %lld us\ntime %u@%u\nseq %u@%u\n",
               (long long)l->epoch_ms, (long long)l->unit_us, t->bits, t->shift,
               s->bits, s->shift);
  if (l->clock_index >= 0)
    n += snprintf(buf + n, cap - (size_t)n, "clock %u@%u\n",
                  l->fields[l->clock_index].bits,
                  l->fields[l->clock_index].shift);
  else
    n += snprintf(buf + n, cap - (size_t)n, "clock none\n");
  n += snprintf(buf + n, cap - (size_t)n, "node %016llx %016llx\n",
                (unsigned long long)mask, (unsigned long long)bits);
  return (size_t)n;
}

void sfc_claim_init(sfc_claim *c) {
  memset(c, 0, sizeof *c);
  c->name = SFC_NO_FD;
  c->record = SFC_NO_FD;
  c->records.fd = SFC_NO_FD;
}

bool sfc_claim_held(const sfc_claim *c) {
  return c->name != SFC_NO_FD;
}

static int64_t wall_tick(const sfc_generator *g) {
  int64_t since = sfc_wall_us() - g->epoch_us;
  return since < 0 ? -1 : since / g->unit_us;
}

static void record_path(const sfc_claim *c, const char *name, char *buf,
                        size_t cap) {
  snprintf(buf, cap, "%s/%s", c->records_path, name);
}

/* The longest record of the key: the size its file is written at. */
static size_t record_size(const sfc_claim *c, uint64_t clock_max) {
  return strlen(RECORD_MAGIC) + c->key_len + 64 + (clock_max + 1) * 21 + 24;
}

static size_t record_text(const sfc_claim *c, const sfc_saved *s,
                          uint64_t clock_max, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "%s%s", RECORD_MAGIC, c->key);
  n += sfc_saved_print(s, clock_max, buf + n, cap - n);
  return n < cap ? sfc_check_append(buf, n, cap) : 0;
}

/* Reads one record file of the key (every user's), into r->into. */
typedef struct reading {
  sfc_claim *claim;
  const sfc_generator *g;
  int64_t now;
  sfc_saved *into;
  bool mine_unspent;
  sfc_status status;
  sfc_error *err;
} reading;

static void read_record(void *ctx, const char *name) {
  reading *r = ctx;
  sfc_claim *c = r->claim;
  /* "snowflake-c-<hex>.<user>": a user is "u<uid>" or "s<sid hash>". */
  const char *tag = name + strlen("snowflake-c-") + 32 + 1;
  if (r->status != SFC_OK || (tag[0] != 'u' && tag[0] != 's') ||
      strspn(tag + 1, "0123456789abcdef") != strlen(tag + 1))
    return;
  const bool mine = strcmp(tag, c->user) == 0;
  char buf[SFC_RECORD_MAX + 1], owner[SFC_TAG_MAX], path[160];
  size_t n, body, end;
  bool missing;
  record_path(c, name, path, sizeof path);
  /* Anything in the way (a link, a FIFO, no descriptor left) refuses the
   * claim: a record not read could be a hand-over lost. */
  r->status = sfc_file_read_at(&c->records, name, path, buf, sizeof buf, &n,
                               &missing, owner, r->err);
  /* An empty one was created a moment ago, or by a holder that died then. */
  if (r->status != SFC_OK || missing || n == 0) return;
  /* Only the words of the user the name gives count; under our own name,
   * another's words are a squatter's. */
  if (strcmp(owner, "*") != 0 && strcmp(owner, tag) != 0) {
    if (mine)
      r->status = sfc_fail(r->err, SFC_STATE_ERROR,
                           "hand-over record %s is not this user's (%s): "
                           "another user squats its name; root can remove it",
                           path, owner[0] ? owner : "open to others' writes");
    return;
  }
  const char *why = sfc_check_verify(buf, n, &body, &end);
  sfc_saved s;
  if (!why && strncmp(buf, RECORD_MAGIC, strlen(RECORD_MAGIC)) != 0)
    why = "not a snowflake-c hand-over record";
  else if (!why && (body < strlen(RECORD_MAGIC) + c->key_len ||
                    memcmp(buf + strlen(RECORD_MAGIC), c->key, c->key_len)))
    why = "another ID space under this name";
  if (!why) {
    buf[body] = '\0';
    why = sfc_saved_parse(buf + strlen(RECORD_MAGIC) + c->key_len,
                          r->g->pack.clock_max, r->g->pack.time_max, &s);
  }
  if (why) {
    r->status = sfc_fail(
        r->err, SFC_STATE_ERROR,
        "hand-over record %s is unreadable (%s): it keeps the last IDs of a "
        "node value given back ahead of the clock; remove it (as its owner "
        "%s, or root) once the clock has passed them",
        path, why, owner[0] ? owner : "user");
    return;
  }
  if (sfc_saved_latest(&s) < r->now) return; /* spent */
  if (mine) r->mine_unspent = true;
  sfc_saved_merge(r->into, &s);
}

/* Our record file, full-size (a spent record until we hand over), and
 * every user's unspent records merged into *handed. */
static sfc_status open_records(sfc_claim *c, const sfc_generator *g,
                               sfc_saved *handed, sfc_error *err) {
  sfc_status st = sfc_records_dir_open(&c->records, c->records_path,
                                       sizeof c->records_path, err);
  if (st != SFC_OK) return st;
  sfc_os_user_tag(c->user, sizeof c->user);
  snprintf(c->record_name, sizeof c->record_name, "snowflake-c-%s.%s", c->hex,
           c->user);
  /* Every record of the key, ours among them, before ours is opened (and
   * created when there is none: the file layer refuses one of another
   * user's that a squatter slips in meanwhile). */
  reading r = {c, g, wall_tick(g), handed, false, SFC_OK, err};
  char prefix[64], path[160];
  snprintf(prefix, sizeof prefix, "snowflake-c-%s.", c->hex);
  st = sfc_dir_each(&c->records, prefix, read_record, &r, err);
  if (st != SFC_OK) return st;
  if (r.status != SFC_OK) return r.status;
  c->mine_unspent = r.mine_unspent;
  record_path(c, c->record_name, path, sizeof path);
  st = sfc_file_open_lock(&c->records, c->record_name, path, &c->record, err);
  if (st != SFC_OK) return st;
  if (c->mine_unspent) return SFC_OK; /* full-size already: keep it */
  char blank[SFC_RECORD_MAX];
  sfc_saved none;
  sfc_saved_clear(&none);
  size_t len = record_text(c, &none, g->pack.clock_max, blank, sizeof blank);
  size_t size = record_size(c, g->pack.clock_max);
  if (size > sizeof blank) size = sizeof blank;
  memset(blank + len, '\n', size - len);
  return sfc_file_overwrite(c->record, blank, size, path, err);
}

sfc_status sfc_claim_take(sfc_claim *c, const sfc_generator *g, uint64_t bits,
                          sfc_saved *handed, bool *held, sfc_holder *who,
                          sfc_error *err) {
  sfc_claim_init(c);
  c->key_len = key_text(&g->layout, bits, c->key, sizeof c->key);
  snprintf(c->hex, sizeof c->hex, "%016llx%016llx",
           (unsigned long long)sfc_fnv1a(SFC_FNV_OFFSET, c->key, c->key_len),
           (unsigned long long)sfc_fnv1a(UINT64_C(0x84222325cbf29ce4), c->key,
                                         c->key_len));
  who->pid = 0;
  who->uid = -1;
  sfc_status st = sfc_os_claim_take(c->hex, &c->name, c->where, sizeof c->where,
                                    held, who, err);
  if (st != SFC_OK || *held) {
    c->name = SFC_NO_FD;
    return st;
  }
  st = open_records(c, g, handed, err);
  if (st != SFC_OK) sfc_claim_release(c, g, NULL);
  return st;
}

/* Waits out a last tick that the wall clock is about to pass (the common
 * case: given back within the tick of its last ID), 2 ms at most and 2 ms
 * more if the wall clock lags the monotonic one that sfc_pause follows. */
static bool still_ahead(const sfc_generator *g, int64_t latest) {
  const int64_t wait_us =
      g->epoch_us + (latest + 1) * g->unit_us - sfc_wall_us();
  if (wait_us > 0 && wait_us <= 2000) {
    const int64_t give_up = sfc_monotonic_us() + wait_us + 2000;
    sfc_pause(wait_us);
    while (latest >= wall_tick(g) && sfc_monotonic_us() < give_up)
      sfc_pause(100);
  }
  return latest >= wall_tick(g);
}

void sfc_claim_release(sfc_claim *c, const sfc_generator *g,
                       const sfc_saved *last) {
  if (c->record != SFC_NO_FD) {
    /* Not told what was issued (a caller's own times): a record that was
     * there stays as it was. */
    bool keep = c->mine_unspent;
    if (last && still_ahead(g, sfc_saved_latest(last))) {
      char text[SFC_RECORD_MAX];
      size_t n = record_text(c, last, g->pack.clock_max, text, sizeof text);
      /* Written over blocks the file has: it cannot run out of space. Had
       * it failed, what the file held before is kept. */
      if (n) sfc_file_overwrite(c->record, text, n, c->record_name, NULL);
      keep = true;
    } else if (last) {
      keep = false;
    }
    if (keep)
      sfc_fd_close(c->record);
    else
      sfc_file_close_removing(&c->records, c->record_name, c->record);
  }
  sfc_fd_close(c->records.fd);
  if (c->name != SFC_NO_FD) sfc_os_claim_release(c->hex, c->name);
  c->name = SFC_NO_FD;
  c->record = SFC_NO_FD;
  c->records.fd = SFC_NO_FD;
}

void sfc_claim_drop(sfc_claim *c) {
  sfc_fd_close(c->record);
  sfc_fd_close(c->records.fd);
  sfc_fd_close(c->name);
  c->name = SFC_NO_FD;
  c->record = SFC_NO_FD;
  c->records.fd = SFC_NO_FD;
}

sfc_status sfc_claim_refuse(const sfc_claim *c, const sfc_generator *g,
                            sfc_holder *who, sfc_error *err) {
  /* A holder that has just taken the name says who it is a moment later:
   * look again, 20 ms at most. */
  for (int i = 0; i < 20 && who->pid <= 0; i++) {
    sfc_pause(1000);
    sfc_os_claim_holder(c->hex, who);
  }
  char node[SFC_NODE_TEXT_MAX], by[96];
  sfc_node_text(&g->layout, &g->node, node, sizeof node);
  if (who->pid <= 0)
    snprintf(by, sizeof by, "another live process (it does not answer)");
  else if (who->uid >= 0 && who->uid != sfc_os_uid())
    snprintf(by, sizeof by, "live process %ld of uid %lld", who->pid, who->uid);
  else
    snprintf(by, sizeof by, "live process %ld", who->pid);
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "node value %s is held by %s (host-wide claim %s): two "
                  "live generators of one value issue the same IDs; give each "
                  "its own, or a pool (auto, with a state_dir), or turn the "
                  "guard off to share it on purpose",
                  node, by, c->where);
}
