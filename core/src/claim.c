/* The host-wide claim of a node value, on the integers: taken, and given
 * back.
 *
 * Two live generators on one host must never both run when some 64-bit
 * integer could come from both: when their patterns (the bits every ID
 * fixes) meet and their ranges from now on overlap (claim_pattern.c).
 *
 * Taking it: the pattern's own name (claim_os_*.c: an abstract socket on
 * Linux, seen across the network namespace; a named section on Windows; a
 * lock file elsewhere) is exclusive; beside it a second name tells the
 * range ("<mask>.<value>.<lowest>"); every other live generator that can
 * meet ours — listed by the OS (Linux: the namespace's abstract names) or
 * by the records folder (claim_records.c) — refuses us too. Then the
 * hand-over records that can meet ours are read and merged, and ours is
 * written ahead (claim_records.c). */
#include "internal.h"

#include "claim_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sfc_claim_init(sfc_claim *c) {
  memset(c, 0, sizeof *c);
  c->name = SFC_NO_FD;
  c->record = SFC_NO_FD;
  c->record_write = SFC_NO_FD;
  c->range = SFC_NO_FD;
  c->ranked = SFC_NO_FD;
  c->records.fd = SFC_NO_FD;
}

bool sfc_claim_held(const sfc_claim *c) {
  return c->name != SFC_NO_FD;
}

/* Other live generators that can meet ours, which the OS lists by their
 * range names: "<mask>.<value>.<lowest>" once settled, with ".<rank>"
 * after it while they are still taking theirs. */
#define RANGE_HEX SFC_RANGE_HEX
#define TAKING_HEX (RANGE_HEX + 17)
typedef struct scan {
  const sfc_claim *claim;
  char other[RANGE_HEX + 1];     /* one that refuses us */
  char waits[4][TAKING_HEX + 1]; /* taking, ranked after us */
  unsigned nwaits;
  bool seen[4];    /* …and still listed, this round */
  bool settled[4]; /* …or listed settled */
  bool contested;  /* `other` is still taking, ranked before us */
} scan;

static void scan_claim(void *ctx, const char *hex) {
  scan *s = ctx;
  const sfc_claim *c = s->claim;
  uint64_t mask, value, lowest, rank = 0;
  const size_t n = strlen(hex);
  char range[RANGE_HEX + 1];
  if (s->other[0] || (n != RANGE_HEX && n != TAKING_HEX)) return;
  snprintf(range, sizeof range, "%.50s", hex);
  if (!sfc_pattern_parse(range, &mask, &value, &lowest) ||
      (mask == c->mask && value == c->value))
    return;
  if (n == TAKING_HEX) {
    if (hex[RANGE_HEX] != '.' ||
        strspn(hex + RANGE_HEX + 1, "0123456789abcdef") != 16)
      return;
    rank = strtoull(hex + RANGE_HEX + 1, NULL, 16);
  }
  if (!sfc_pattern_meets(mask, value, c->mask, c->value) ||
      !sfc_pattern_overlap(lowest, sfc_pattern_top(mask), c->lowest,
                           sfc_pattern_top(c->mask)))
    return;
  for (unsigned i = 0; i < s->nwaits; i++) {
    if (!strcmp(s->waits[i], hex)) s->seen[i] = true;
    if (n == RANGE_HEX && !strncmp(s->waits[i], hex, RANGE_HEX))
      s->settled[i] = true;
  }
  /* Settled, or taking and ranked before us: it has it. Ranked after us:
   * it gives way, unless it listed the names before ours was there. */
  if (n == RANGE_HEX) {
    bool waited = false;
    for (unsigned i = 0; i < s->nwaits; i++)
      waited = waited || !strncmp(s->waits[i], hex, RANGE_HEX);
    if (!waited) snprintf(s->other, sizeof s->other, "%s", range);
    return;
  }
  if (rank < c->taking) {
    snprintf(s->other, sizeof s->other, "%s", range);
    s->contested = true;
    return;
  }
  for (unsigned i = 0; i < s->nwaits; i++)
    if (!strcmp(s->waits[i], hex)) return;
  if (s->nwaits == sizeof s->waits / sizeof s->waits[0]) {
    snprintf(s->other, sizeof s->other, "%s", range); /* too many at once */
    return;
  }
  snprintf(s->waits[s->nwaits], sizeof s->waits[0], "%s", hex);
  s->seen[s->nwaits++] = true;
}

/* The names of the live generators that can meet ours: one settled, or
 * taking and ranked before us, refuses us (s->other); one taking and
 * ranked after us is waited for, 200 ms at most, until it has given way
 * (its names gone) or settled (then it refuses us). */
static sfc_status scan_claims(const sfc_claim *c, scan *s, sfc_error *err) {
  memset(s, 0, sizeof *s);
  s->claim = c;
  sfc_status st = sfc_os_claim_each(scan_claim, s, err);
  for (int round = 0; st == SFC_OK && !s->other[0] && s->nwaits; round++) {
    unsigned keep = 0;
    for (unsigned i = 0; i < s->nwaits; i++) {
      if (s->settled[i]) {
        snprintf(s->other, sizeof s->other, "%.50s", s->waits[i]);
        return SFC_OK;
      }
      if (s->seen[i]) {
        if (keep != i) memcpy(s->waits[keep], s->waits[i], sizeof s->waits[0]);
        keep++;
      }
    }
    s->nwaits = keep;
    if (!keep) break;
    if (round == 200) {
      snprintf(s->other, sizeof s->other, "%.50s", s->waits[0]);
      break;
    }
    sfc_pause(1000);
    memset(s->seen, 0, sizeof s->seen);
    memset(s->settled, 0, sizeof s->settled);
    st = sfc_os_claim_each(scan_claim, s, err);
  }
  return st;
}

/* Whether a name of `c`'s own pattern, with a rank, is listed: its holder
 * is still taking it. */
typedef struct same_taking {
  const char *hex;
  bool found;
} same_taking;

static void find_same_taking(void *ctx, const char *hex) {
  same_taking *t = ctx;
  if (strlen(hex) == TAKING_HEX && !strncmp(hex, t->hex, SFC_PATTERN_HEX))
    t->found = true;
}

/* The names beside the pattern's: the range, and with the rank. */
static void range_names(const sfc_claim *c, char *range, char *ranked) {
  snprintf(range, RANGE_HEX + 1, "%s.%016llx", c->hex,
           (unsigned long long)c->lowest);
  snprintf(ranked, TAKING_HEX + 1, "%s.%016llx", range,
           (unsigned long long)c->rank);
}

static sfc_status take_once(sfc_claim *c, const sfc_generator *g, uint64_t bits,
                            sfc_saved *handed, bool *held, sfc_holder *who,
                            sfc_error *err) {
  sfc_claim_init(c);
  sfc_pattern_of(&g->layout, bits, &c->mask, &c->value);
  c->lowest = sfc_pattern_lowest(&g->layout);
  snprintf(c->hex, sizeof c->hex, "%016llx.%016llx",
           (unsigned long long)c->mask, (unsigned long long)c->value);
  who->pid = 0;
  who->uid = -1;
  who->find = NULL;
  sfc_fd name = SFC_NO_FD;
  sfc_status st = sfc_os_claim_take(c->hex, &name, c->where, sizeof c->where,
                                    held, who, err);
  if (st == SFC_OK && *held) {
    same_taking t = {c->hex, false};
    sfc_error ignored;
    (void)sfc_os_claim_each(find_same_taking, &t, &ignored);
    c->contested = t.found;
  }
  if (st != SFC_OK || *held) return st;
  c->name = name;
  /* Ranked at random while it takes the claim: of two that take claims
   * that meet at once, each shows its rank before it looks for the
   * other's, so at least one finds the other, and one gives way. */
  if (!sfc_os_random(&c->taking, sizeof c->taking))
    c->taking =
        sfc_splitmix64((uint64_t)sfc_monotonic_us() ^ (uint64_t)sfc_os_pid());
  c->taking |= 1; /* never 0, which says settled */
  c->rank = c->taking;
  /* The range beside it, for others' scans (ours alone, since we hold the
   * pattern): with the rank while it takes — until its generator is whole
   * (sfc_claim_settle), since its creation may yet fail after the claim
   * and let go, and a scan that meets a rank looks again — then settled. */
  char range[RANGE_HEX + 1], ranked[TAKING_HEX + 1], where[160];
  bool taken;
  sfc_holder nobody;
  range_names(c, range, ranked);
  st = sfc_os_claim_take(ranked, &c->ranked, where, sizeof where, &taken,
                         &nobody, err);
  if (st == SFC_OK && taken) c->ranked = SFC_NO_FD;
  scan s;
  if (st == SFC_OK) st = scan_claims(c, &s, err);
  if (st == SFC_OK && s.other[0]) {
    *held = true;
    c->contested = s.contested;
    sfc_os_claim_holder(s.other, who);
    sfc_claim_holder_layout(s.other, c->other, sizeof c->other);
    if (!c->other[0])
      snprintf(c->other, sizeof c->other, "fixed bits %.*s", SFC_PATTERN_HEX,
               s.other);
  }
  if (st == SFC_OK && !*held)
    st = sfc_claim_records_open(c, g, handed, held, who, err);
  if (st != SFC_OK || *held) sfc_claim_release(c, g, NULL);
  return st;
}

sfc_status sfc_claim_settle(sfc_claim *c, const sfc_generator *g,
                            sfc_error *err) {
  if (sfc_test_hook) sfc_test_hook("claim: generator whole, not settled");
  if (c->ranked == SFC_NO_FD)
    return c->taking ? sfc_claim_records_settle(c, g, err) : SFC_OK;
  char range[RANGE_HEX + 1], ranked[TAKING_HEX + 1], where[160];
  bool taken;
  sfc_holder nobody;
  range_names(c, range, ranked);
  sfc_status st = sfc_os_claim_take(range, &c->range, where, sizeof where,
                                    &taken, &nobody, err);
  if (st == SFC_OK && taken) c->range = SFC_NO_FD;
  if (st != SFC_OK) return st;
  sfc_os_claim_release(ranked, c->ranked);
  c->ranked = SFC_NO_FD;
  return sfc_claim_records_settle(c, g, err);
}

sfc_status sfc_claim_take(sfc_claim *c, const sfc_generator *g, uint64_t bits,
                          sfc_saved *handed, bool *held, sfc_holder *who,
                          sfc_error *err) {
  /* One still taking a claim that meets ours, ranked before us, refuses us
   * while it takes (its rank shows until its generator is whole); should
   * it then fail (its state file or lock, a record, the clock), no one
   * would hold the value and both would have been refused. So while the
   * one that refused us is still taking, we let go of everything (it may be
   * waiting for us to give way) and look again, 200 ms at most: it has
   * settled (a refusal for good) or given up (ours to take). A name held
   * by one that does not say who it is may have just been taken (it
   * answers a moment later) or let go (a create that failed after taking
   * it): look again too, for 20 ms from when it was first seen so — a
   * holder may let go between our bind and our question at the end of a
   * contested wait, and the value is then free. */
  const int64_t start = sfc_monotonic_us();
  int64_t unanswered = -1;
  for (;;) {
    sfc_status st = take_once(c, g, bits, handed, held, who, err);
    c->refuser = st == SFC_OK && *held ? (who->pid > 0 ? who->pid : -1) : 0;
    if (st != SFC_OK || !*held) return st;
    const int64_t now = sfc_monotonic_us();
    const bool silent = who->pid <= 0 && !c->other[0];
    if (silent && unanswered < 0) unanswered = now;
    if (!(c->contested && now - start <= 200000) &&
        !(silent && now - unanswered <= 20000))
      return st;
    sfc_pause(1000);
  }
}

/* The record first: a contender that finds the names free finds it
 * unlocked too. */
static void close_records(sfc_claim *c) {
  sfc_fd_close(c->record_write);
  sfc_fd_close(c->record);
  sfc_fd_close(c->records.fd);
  c->record = SFC_NO_FD;
  c->record_write = SFC_NO_FD;
  c->records.fd = SFC_NO_FD;
}

void sfc_claim_release(sfc_claim *c, const sfc_generator *g,
                       const sfc_saved *last) {
  /* Written over blocks the file has: it cannot run out of space. Had it
   * failed, the record written ahead stands, which covers it. */
  if (last && c->record != SFC_NO_FD) sfc_claim_write(c, g, last, true, NULL);
  close_records(c);
  /* The holder lets go of its names: a lock file (claim_os_file.c) is
   * removed by its holder alone. */
  char range[RANGE_HEX + 1], ranked[TAKING_HEX + 1];
  range_names(c, range, ranked);
  if (c->ranked != SFC_NO_FD) sfc_os_claim_release(ranked, c->ranked);
  if (c->range != SFC_NO_FD) sfc_os_claim_release(range, c->range);
  if (c->name != SFC_NO_FD) sfc_os_claim_release(c->hex, c->name);
  c->name = SFC_NO_FD;
  c->range = SFC_NO_FD;
  c->ranked = SFC_NO_FD;
}

/* A forked copy closes and removes nothing: the names' files are its
 * parent's (one inode), still held there. */
void sfc_claim_drop(sfc_claim *c) {
  close_records(c);
  sfc_fd_close(c->ranked);
  sfc_fd_close(c->range);
  sfc_fd_close(c->name);
  c->name = SFC_NO_FD;
  c->range = SFC_NO_FD;
  c->ranked = SFC_NO_FD;
}

void sfc_claim_drop_copies(const sfc_claim *c) {
  sfc_fd_close(c->record);
  sfc_fd_close(c->ranked);
  sfc_fd_close(c->range);
  sfc_fd_close(c->name);
}
