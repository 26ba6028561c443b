/* A holder of a node value that ends one of the ways a process ends, and
 * its successor, started at once: the successor must issue none of the
 * holder's IDs. Between the two, a fault puts the holder's last IDs where
 * a successor starting from the wall clock would meet them: the wall clock
 * stepped back (under each strategy and time source), ticks borrowed
 * ahead, coarse ticks (1 s), a state_dir, a pool.
 *
 * Run under LD_PRELOAD=libfaketimeMT.so.1 with FAKETIME_TIMESTAMP_FILE
 * (holding "+0"), FAKETIME_NO_CACHE=1 and FAKETIME_DONT_FAKE_MONOTONIC=1;
 * the row's epoch (RELIABILITY_EPOCH_MS), worker 7 (or auto, from the
 * state_dir RELIABILITY_STATE_DIR).
 *
 * Usage: ending first VARIANT MS IDS_FILE END [NEXT_MS NEXT_IDS_FILE]
 *        ending next VARIANT MS IDS_FILE FIRST_IDS_FILE
 *   first  IDs for MS ms (the variant's step of the wall clock halfway,
 *          measured), each batch written to IDS_FILE as it comes; then
 *          IDS_FILE.ready is made, and the holder ends by END: close (the
 *          generator freed), exit (exit(0) without it), abort, exec (into
 *          `next`, with NEXT_MS and NEXT_IDS_FILE, in this process), or
 *          wait (IDs until a signal ends it).
 *   next   a new generator of the value, IDs for MS ms. It must start
 *          while the wall clock is not past the last tick of the IDs in
 *          FIRST_IDS_FILE — the fault this run is about — else it fails.
 * Prints the RESULT line of tests/reliability/run (first: before it ends). */
#include "common.h"

#include <signal.h>
#include <sys/stat.h>

typedef struct variant {
  const char *name;
  const char *spec;    /* NULL: the default preset's fields */
  const char *options; /* name=value,…; state_dir=@: RELIABILITY_STATE_DIR */
  double step_s;       /* the wall clock's step, halfway; 0 none */
  bool burst;          /* IDs as fast as they come (ticks used up, borrowed) */
  bool pool;           /* node auto */
  bool refuses;        /* the step makes the holder's calls fail */
} variant;

static const variant variants[] = {
    {"clock", NULL, "rollback=clock", -2, false, false, false},
    {"wait", NULL, "rollback=wait,max_wait=5s", -1, false, false, false},
    {"borrow", "time:42@1ms,clock:3,worker:7,seq:11",
     "rollback=borrow,max_drift=2s", 0, true, false, false},
    {"monotonic", NULL, "time_source=monotonic", -2, false, false, false},
    {"counter", NULL, "time_source=counter,rollback=clock", -2, false, false,
     false},
    {"coarse", "time:33@1s,clock:2,worker:7,seq:16", "rollback=default", 0,
     false, false, false},
    {"state_dir", NULL, "rollback=clock,state_dir=@", -2, false, false, false},
    {"error", NULL, "rollback=error", -1, false, false, true},
    {"switch", NULL, "rollback=switch,state_dir=@", -2, false, true, false},
};

static const variant *variant_named(const char *name) {
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
    if (!strcmp(variants[i].name, name)) return &variants[i];
  fprintf(stderr, "ending: no variant %s\n", name);
  exit(2);
}

static void layout_of(const variant *v, sfc_layout *out) {
  sfc_error err;
  if (!v->spec) {
    row_layout("default", out);
    return;
  }
  must(sfc_layout_parse(v->spec, row_epoch_ms(), out, &err), &err, v->spec);
}

static sfc_generator *generator_of(const variant *v, const sfc_layout *l) {
  static sfc_node_value node[1];
  sfc_options opts;
  sfc_options_init(&opts);
  node[0] = (sfc_node_value){"worker", 7, SFC_SOURCE_EXPLICIT};
  if (v->pool) node[0].source = SFC_SOURCE_POOL;
  sfc_options_set_nodes(&opts, node, 1);
  sfc_error err;
  char text[256];
  snprintf(text, sizeof text, "%s", v->options);
  for (char *item = strtok(text, ","); item; item = strtok(NULL, ",")) {
    char *eq = strchr(item, '=');
    if (!eq) continue;
    *eq = '\0';
    const char *value = eq + 1;
    if (!strcmp(value, "@")) value = getenv("RELIABILITY_STATE_DIR");
    if (!value) {
      fprintf(stderr, "ending: %s needs RELIABILITY_STATE_DIR\n", v->name);
      exit(2);
    }
    sfc_value val = {SFC_TYPE_TEXT, 0, 0, 0, value, strlen(value), 0};
    must(sfc_options_set(&opts, item, strlen(item), &val, &err), &err, item);
  }
  sfc_generator *g;
  must(sfc_generator_new(l, &opts, &g, &err), &err, "generator");
  return g;
}

/* IDs written as they come: a process killed between two batches has
 * written every ID it issued but the batch in hand. */
static void write_ids(int fd, const uint64_t *v, size_t n) {
  static char buf[4096 * 21];
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%" PRIu64 "\n", v[i]);
  if (write(fd, buf, k) != (ssize_t)k) {
    perror("write");
    exit(99);
  }
}

static uint64_t last_issued; /* the last ID generate() wrote */

/* IDs until the monotonic clock reaches `until_us` (forever: INT64_MAX),
 * 16 at the start of each millisecond, or as fast as they come. Calls that
 * fail count in r (expected where the variant refuses). */
static void generate(sfc_generator *g, const variant *v, int64_t until_us,
                     int fd, result *r) {
  uint64_t batch[4096];
  const size_t want = v->burst ? 4096 : 16;
  while (mono_us() < until_us) {
    size_t got = 0;
    sfc_error err;
    sfc_status st = sfc_next_ids(g, batch, want, &got, &err);
    write_ids(fd, batch, got);
    r->ids += got;
    if (got) last_issued = batch[got - 1];
    if (st != SFC_OK) {
      if (v->refuses && st == SFC_CLOCK_MOVED_BACKWARDS) {
        r->expected++;
      } else {
        r->unexpected++;
        result_fail(r, "%s: %s", sfc_status_name(st), err.message);
        return;
      }
    }
    if (!v->burst) sfc_pause(1000 - mono_us() % 1000);
  }
}

/* How far the last ID issued is ahead of the wall clock, in ms. */
static double lead_ms(const sfc_layout *layout) {
  const int64_t now =
      (wall_us() - layout->epoch_ms * 1000) / (int64_t)layout->unit_us;
  const int64_t tick = (int64_t)(last_issued >> layout->fields[0].shift);
  return (double)(tick - now) * (double)layout->unit_us / 1e3;
}

static int first(const variant *v, int64_t ms, const char *path,
                 const char *end, char **next_args) {
  const char *file = getenv("FAKETIME_TIMESTAMP_FILE");
  if (v->step_s && (!file || !getenv("LD_PRELOAD"))) {
    fprintf(stderr, "ending: run under libfaketime with "
                    "FAKETIME_TIMESTAMP_FILE\n");
    return 2;
  }
  sfc_layout layout;
  layout_of(v, &layout);
  sfc_generator *g = generator_of(v, &layout);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0) {
    perror(path);
    return 99;
  }
  result r = {.ok = true};
  generate(g, v, mono_us() + ms * 500, fd, &r);
  double measured = 0;
  if (v->step_s) {
    const int offset = faketime_open(file);
    const int64_t before = wall_offset_us();
    faketime_set(offset, v->step_s);
    measured = (double)(before - wall_offset_us()) / 1000.0;
    if (!step_measured(measured, -v->step_s * 1000))
      result_fail(&r, "the wall clock stepped %.3f ms back, not %.0f ms",
                  measured, -v->step_s * 1000);
    r.faults++;
    close(offset);
  }
  /* rollback=wait: the end comes while the holder waits for the clock, its
   * last IDs ahead of it. */
  if (strncmp(v->options, "rollback=wait", 13) != 0)
    generate(g, v, mono_us() + ms * 500, fd, &r);
  /* Ticks borrowed: on until the last ID is a second ahead of the wall
   * clock (of max_drift's 2 s), so that the successor, started after the
   * holder's end and a process start on a loaded machine, is still behind
   * it. How fast the holder gets ahead depends on the machine, not on the
   * time given. */
  if (v->burst) {
    const int64_t give_up = mono_us() + 20 * 1000000;
    while (lead_ms(&layout) < 1000 && mono_us() < give_up && r.ok)
      generate(g, v, mono_us() + 50000, fd, &r);
  }
  /* Coarse ticks: the end comes early in a tick, so that the successor
   * starts in the tick the holder used last. A tick begins at the epoch's
   * millisecond within a second, not at the second. */
  if (layout.unit_us >= 1000000) {
    while ((wall_us() - layout.epoch_ms * 1000) % (int64_t)layout.unit_us >
           50000)
      sfc_pause(1000);
    generate(g, v, mono_us() + 5000, fd, &r);
  }
  sfc_stats s;
  sfc_generator_stats(g, &s);
  print_stats("first", g);
  if (!strcmp(v->name, "borrow") &&
      sfc_stats_uint(&s, SFC_STAT_BORROWED_TICKS) == 0)
    result_fail(&r, "no tick borrowed");
  if (v->step_s && !v->refuses && !strcmp(v->options, "rollback=clock") &&
      sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS) == 0)
    result_fail(&r, "no clock bump at the step");
  snprintf(r.note + strlen(r.note), sizeof r.note - strlen(r.note),
           "%s%s: %" PRIu64 " IDs, stepped %.0f ms, %" PRIu64 " bumps, "
           "%" PRIu64 " borrowed, clock value %" PRIu64 ", then %s",
           r.note[0] ? "; " : "", v->name, r.ids, measured,
           sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS),
           sfc_stats_uint(&s, SFC_STAT_BORROWED_TICKS),
           sfc_stats_uint(&s, SFC_STAT_CLOCK), end);
  r.dups = 0;
  result_print(&r);
  char ready[512];
  snprintf(ready, sizeof ready, "%s.ready", path);
  close(open(ready, O_WRONLY | O_CREAT, 0644));
  if (!strcmp(end, "close")) {
    sfc_generator_free(g);
    return r.ok ? 0 : 1;
  }
  if (!strcmp(end, "exit")) exit(r.ok ? 0 : 1);
  if (!strcmp(end, "abort")) abort();
  if (!strcmp(end, "exec")) {
    execv("/proc/self/exe", next_args);
    perror("execv");
    return 99;
  }
  /* wait: IDs until a signal ends the process. */
  generate(g, v, INT64_MAX, fd, &r);
  return 99;
}

static int next(const variant *v, int64_t ms, const char *path,
                const char *first_path) {
  sfc_layout layout;
  layout_of(v, &layout);
  result r = {.ok = true};
  /* The successor starts while the wall clock is not past the last tick
   * its predecessor issued: the fault this run is about. The clock is read
   * as the generator is made, and the predecessor's IDs after it. */
  const int64_t now =
      (wall_us() - layout.epoch_ms * 1000) / (int64_t)layout.unit_us;
  sfc_generator *g = generator_of(v, &layout);
  const int64_t last = last_tick_of(first_path, &layout);
  const double behind_ms = (double)(last - now) * (double)layout.unit_us / 1e3;
  if (last < 0 || now > last)
    result_fail(&r,
                "started %.0f ms past the first one's last tick: nothing "
                "was left to hand over",
                -behind_ms);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0) {
    perror(path);
    return 99;
  }
  /* rollback=error refuses until the clock passes what it was handed. */
  generate(g, v, mono_us() + ms * 1000, fd, &r);
  sfc_stats s;
  sfc_generator_stats(g, &s);
  print_stats("next", g);
  sfc_generator_free(g);
  if (r.ok)
    snprintf(r.note, sizeof r.note,
             "next: started %.0f ms behind the last tick, clock value "
             "%" PRIu64 ", %" PRIu64 " IDs",
             behind_ms, sfc_stats_uint(&s, SFC_STAT_CLOCK), r.ids);
  result_print(&r);
  return r.ok ? 0 : 1;
}

int main(int argc, char **argv) {
  /* As a service starts: a shell's background job ignores SIGINT. */
  signal(SIGINT, SIG_DFL);
  if (argc >= 6 && !strcmp(argv[1], "first")) {
    char *next_args[] = {argv[0],
                         "next",
                         argv[2],
                         argc > 6 ? argv[6] : "0",
                         argc > 7 ? argv[7] : "/dev/null",
                         argv[4],
                         NULL};
    if (!strcmp(argv[5], "exec") && argc != 8) {
      fprintf(stderr, "ending: exec needs NEXT_MS NEXT_IDS_FILE\n");
      return 2;
    }
    return first(variant_named(argv[2]), atol(argv[3]), argv[4], argv[5],
                 next_args);
  }
  if (argc == 6 && !strcmp(argv[1], "next"))
    return next(variant_named(argv[2]), atol(argv[3]), argv[4], argv[5]);
  fprintf(stderr, "usage: ending first VARIANT MS IDS_FILE "
                  "close|exit|abort|wait|exec [NEXT_MS NEXT_IDS_FILE]\n"
                  "       ending next VARIANT MS IDS_FILE FIRST_IDS_FILE\n");
  return 2;
}
