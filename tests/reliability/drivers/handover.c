/* The hand-over of a node value given back ahead of the wall clock, with
 * no state_dir: the next holder must start after everything the last one
 * issued — its clock value and per-clock table too — judged on the wall
 * clock, whatever time source the generator used.
 *
 * Run under LD_PRELOAD=libfaketimeMT.so.1 with FAKETIME_TIMESTAMP_FILE
 * (holding "+0"), FAKETIME_NO_CACHE=1 and FAKETIME_DONT_FAKE_MONOTONIC=1.
 * The default preset's fields (a clock field) on the row's epoch
 * (RELIABILITY_EPOCH_MS), worker 7, no state_dir; 16 IDs at the start of
 * each millisecond, so that two generators issuing in one tick under one
 * clock value issue the same IDs.
 *
 * Usage: handover table|monotonic first MS IDS_FILE
 *        handover table|monotonic next MS IDS_FILE FIRST_IDS_FILE
 *   table first      MS ms of IDs; the wall clock 10 s back (the clock
 *                    field bumped), MS ms; 2 s further back (bumped
 *                    again), MS ms; freed, its last ticks far ahead of the
 *                    wall clock: handed over.
 *   monotonic first  time_source=monotonic: MS ms; the wall clock 2 s back
 *                    (the generator does not see it), MS ms; freed, its
 *                    last tick 2 s ahead of the wall clock: handed over.
 *   next             a new generator of the value (monotonic for
 *                    `monotonic`), the wall clock still behind, MS ms.
 * Each run proves that its fault happened, so that a run without
 * libfaketime (no step at all) fails: `first` measures every step of the
 * wall clock it makes, as the clock-step rows do (within 2 %), and `table`
 * counts a clock bump for each; `next` reads the first's IDs
 * (FIRST_IDS_FILE) and must start with the wall clock more than a second
 * behind the last tick the first one issued.
 * Writes the IDs to IDS_FILE, one per line; prints the counters and the
 * RESULT line of tests/reliability/run. */
#include "common.h"

#include <fcntl.h>
#include <unistd.h>

static int offset_fd = -1;

/* 16 IDs at the start of every millisecond for `ms` ms. */
static sfc_status run(sfc_generator *g, int64_t ms, ids *out, sfc_error *err) {
  const int64_t end = mono_us() + ms * 1000;
  uint64_t batch[16];
  while (mono_us() < end) {
    size_t got = 0;
    sfc_status st = sfc_next_ids(g, batch, 16, &got, err);
    ids_append(out, batch, got);
    if (st != SFC_OK) return st;
    sfc_pause(1000 - mono_us() % 1000);
  }
  return SFC_OK;
}

int main(int argc, char **argv) {
  const bool usage_ok = (argc == 5 && !strcmp(argv[2], "first")) ||
                        (argc == 6 && !strcmp(argv[2], "next"));
  if (!usage_ok || (strcmp(argv[1], "table") && strcmp(argv[1], "monotonic"))) {
    fprintf(stderr, "usage: handover table|monotonic first MS IDS_FILE\n"
                    "       handover table|monotonic next MS IDS_FILE "
                    "FIRST_IDS_FILE\n");
    return 2;
  }
  const char *file = getenv("FAKETIME_TIMESTAMP_FILE");
  if (!file || !getenv("LD_PRELOAD")) {
    fprintf(stderr, "handover: run under libfaketime with "
                    "FAKETIME_TIMESTAMP_FILE\n");
    return 2;
  }
  const bool monotonic = !strcmp(argv[1], "monotonic");
  const bool first = !strcmp(argv[2], "first");
  const int64_t ms = atol(argv[3]);
  sfc_layout layout;
  row_layout("default", &layout);
  sfc_node_value node[] = {{"worker", 7, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  sfc_error err;
  if (monotonic) {
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, "monotonic", 9, 0};
    must(sfc_options_set(&opts, "time_source", 11, &v, &err), &err,
         "time_source");
  }
  result r = {.ok = true};
  /* The successor starts while the wall clock is behind the last tick its
   * predecessor issued: the fault this run is about. */
  double behind_ms = 0;
  if (!first) {
    const int64_t last = last_tick_of(argv[5], &layout);
    behind_ms = (double)last * (double)layout.unit_us / 1000.0 -
                (double)(wall_us() / 1000 - layout.epoch_ms);
    if (last < 0 || behind_ms < 1000)
      result_fail(&r,
                  "started %.0f ms behind the first one's last tick, not "
                  "more than 1000 ms: no step of the wall clock",
                  behind_ms);
  }
  sfc_generator *g;
  must(sfc_generator_new(&layout, &opts, &g, &err), &err, "generator");
  offset_fd = faketime_open(file);

  ids out = {0};
  sfc_status st = run(g, ms, &out, &err);
  double measured[2] = {0, 0};
  int64_t unseen_us = 0; /* how far the generator's clock moved at a step */
  if (first) {
    const double steps[2] = {monotonic ? -2 : -10, -12};
    for (int i = 0; i < (monotonic ? 1 : 2) && st == SFC_OK; i++) {
      const int64_t before = wall_offset_us();
      const int64_t gen_before = sfc_generator_now_us(g) - mono_us();
      faketime_set(offset_fd, steps[i]);
      measured[i] = (double)(before - wall_offset_us()) / 1000.0;
      const int64_t moved = gen_before - (sfc_generator_now_us(g) - mono_us());
      if (llabs(moved) > llabs(unseen_us)) unseen_us = moved;
      const double want = (i ? steps[0] - steps[1] : -steps[0]) * 1000;
      if (!step_measured(measured[i], want))
        result_fail(&r, "the wall clock stepped %.3f ms back, not %.0f ms",
                    measured[i], want);
      r.faults++;
      st = run(g, ms, &out, &err);
    }
  }
  if (st != SFC_OK) {
    r.unexpected++;
    result_fail(&r, "%s: %s", sfc_status_name(st), err.message);
  }
  sfc_stats s;
  sfc_generator_stats(g, &s);
  print_stats(argv[2], g);
  /* The steps as this row means them: each bumped the clock field, or went
   * unseen by a monotonic generator. */
  if (first && !monotonic && sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS) != 2)
    result_fail(&r, "%" PRIu64 " clock bumps for 2 steps back",
                sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS));
  if (first && monotonic && sfc_stats_uint(&s, SFC_STAT_ROLLBACKS) != 0)
    result_fail(&r, "the monotonic generator saw %" PRIu64 " rollbacks",
                sfc_stats_uint(&s, SFC_STAT_ROLLBACKS));
  /* Its clock did not step with the wall clock (readings a few us apart). */
  if (first && monotonic && llabs(unseen_us) > 500)
    result_fail(&r, "the monotonic generator's clock moved %.3f ms at the step",
                (double)unseen_us / 1000.0);
  const uint64_t clock = sfc_stats_uint(&s, SFC_STAT_CLOCK),
                 bumps = sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS);
  sfc_generator_free(g);

  FILE *f = fopen(argv[4], "w");
  if (!f) {
    perror(argv[4]);
    return 99;
  }
  for (size_t i = 0; i < out.n; i++)
    fprintf(f, "%" PRIu64 "\n", out.v[i]);
  fclose(f);
  r.ids = out.n;
  r.dups = ids_dups(out.v, out.n);
  if (r.dups) result_fail(&r, "%" PRIu64 " duplicate IDs", r.dups);
  if (r.ok && first && monotonic)
    snprintf(r.note, sizeof r.note,
             "first: wall clock stepped %.0f ms back, unseen; clock value "
             "%" PRIu64,
             measured[0], clock);
  else if (r.ok && first)
    snprintf(r.note, sizeof r.note,
             "first: wall clock stepped %.0f and %.0f ms back, %" PRIu64
             " bumps, clock value %" PRIu64,
             measured[0], measured[1], bumps, clock);
  else if (r.ok)
    snprintf(r.note, sizeof r.note,
             "next: started %.0f ms behind the last tick, clock value "
             "%" PRIu64 ", %" PRIu64 " bumps",
             behind_ms, clock, bumps);
  result_print(&r);
  free(out.v);
  return r.ok ? 0 : 1;
}
