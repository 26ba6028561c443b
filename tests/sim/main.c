/* The simulator's command: the core on a simulated host, against the model
 * of which integers each generator may issue.
 *
 *   sim --seconds 120            as many seeds as fit (the tests/run mode)
 *   sim --hours 8                the long mode: unattended, with a rate
 *   sim --seeds 1000 [--first S] seeds S .. S+999
 *   sim --seed S [--trace]       one seed; --print shows its schedule
 *   sim --replay FILE            a schedule kept as a test case
 *
 * A failure prints its seed, what the model found, and the schedule
 * shortened while it still fails the same way (--no-shrink: as made);
 * --keep DIR writes that schedule to DIR/seed-S.txt. Exit status: 0 when
 * every schedule passed, 1 on a failure, 2 on a usage error. */
#define _GNU_SOURCE
#include "runtime.h"
#include "schedule.h"
#include "sim.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* os_sim.c's: the host's claims are lock files (claim_os_file.c). */
extern bool sfc_claim_by_file;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void) {
  fprintf(stderr, "usage: sim [--seconds T | --hours H | --seeds N [--first S] "
                  "| --seed S [--print] | --replay FILE] [--trace] "
                  "[--no-shrink] [--keep DIR] [--no-records-link-live] "
                  "[--max-failures N]\n");
  return 2;
}

int main(int argc, char **argv) {
  /* A simulated process: run by the kernel (kernel.c's run_program). */
  if (argc == 8 && !strcmp(argv[1], "--process")) {
    sfc_claim_by_file = !strcmp(argv[7], "file");
    sim_process_main(atoi(argv[2]), atol(argv[3]), atol(argv[4]), argv[5],
                     atol(argv[6]));
    return 0;
  }
  double seconds = 0;
  uint64_t seeds = 0, first = 1, one = 0;
  bool have_one = false, trace = false, shrink = true, print = false;
  bool link_live = true, determinism = false;
  const char *replay = NULL, *keep = NULL;
  int max_failures = 1, repeat = 1;
  uint64_t warm = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--seconds") && v)
      seconds = atof(argv[++i]);
    else if (!strcmp(a, "--hours") && v)
      seconds = atof(argv[++i]) * 3600;
    else if (!strcmp(a, "--seeds") && v)
      seeds = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--first") && v)
      first = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--seed") && v) {
      one = strtoull(argv[++i], NULL, 10);
      have_one = true;
    } else if (!strcmp(a, "--replay") && v)
      replay = argv[++i];
    else if (!strcmp(a, "--keep") && v)
      keep = argv[++i];
    else if (!strcmp(a, "--max-failures") && v)
      max_failures = atoi(argv[++i]);
    else if (!strcmp(a, "--trace"))
      trace = true;
    else if (!strcmp(a, "--print"))
      print = true;
    else if (!strcmp(a, "--no-shrink"))
      shrink = false;
    else if (!strcmp(a, "--records-link-live"))
      link_live = true;
    else if (!strcmp(a, "--check-determinism"))
      determinism = true;
    else if (!strcmp(a, "--repeat") && v)
      repeat = atoi(argv[++i]);
    else if (!strcmp(a, "--warm") && v)
      warm = strtoull(argv[++i], NULL, 10);
    else
      return usage();
  }
  signal(SIGPIPE, SIG_IGN);
  if (replay) {
    FILE *f = fopen(replay, "r");
    schedule s;
    if (!f || !schedule_read(f, &s)) {
      fprintf(stderr, "sim: cannot read the schedule %s\n", replay);
      return 2;
    }
    fclose(f);
    uint64_t steps, ids;
    const char *why = NULL;
    for (int r = 0; r < (repeat > 0 ? repeat : 1); r++) {
      if (warm) {
        schedule w;
        schedule_make(warm, &w);
        schedule_run(&w, false, NULL, NULL);
        schedule_free(&w);
      }
      why = schedule_run(&s, trace, &steps, &ids);
      printf("%s: %zu actions, %llu steps, %llu IDs: %s\n", replay, s.count,
             (unsigned long long)steps, (unsigned long long)ids,
             why ? why : "pass");
    }
    schedule_free(&s);
    return why ? 1 : 0;
  }
  if (have_one) {
    first = one;
    seeds = 1;
  }
  if (!seeds && seconds <= 0) return usage();
  const double start = now_s();
  uint64_t runs = 0, total_steps = 0, total_ids = 0;
  int failures = 0;
  for (uint64_t seed = first;; seed++) {
    if (seeds && seed >= first + seeds) break;
    if (!seeds && now_s() - start >= seconds) break;
    schedule s;
    schedule_make(seed, &s);
    s.records_link_live = link_live;
    if (print) schedule_print(&s, stdout);
    uint64_t steps = 0, ids = 0;
    const char *why = schedule_run(&s, trace, &steps, &ids);
    runs++;
    if (determinism) {
      char first_why[2048];
      snprintf(first_why, sizeof first_why, "%s", why ? why : "pass");
      uint64_t h = schedule_last_hash();
      const char *again = schedule_run(&s, false, NULL, NULL);
      if (schedule_last_hash() != h ||
          strcmp(first_why, again ? again : "pass")) {
        printf("NONDETERMINISTIC seed %llu: %s / %s\n",
               (unsigned long long)seed, first_why, again ? again : "pass");
        failures++;
      }
      why = NULL;
    }
    total_steps += steps;
    total_ids += ids;
    if (why) {
      failures++;
      char kept[2048];
      snprintf(kept, sizeof kept, "%s", why);
      printf("FAIL seed %llu: %s\n", (unsigned long long)seed, kept);
      if (shrink) {
        schedule_shrink(&s, kept);
        const char *again = schedule_run(&s, false, NULL, NULL);
        printf("shortened to %zu actions (%s):\n", s.count,
               again ? again : "no longer fails");
      }
      schedule_print(&s, stdout);
      if (keep) {
        char path[512];
        snprintf(path, sizeof path, "%s/seed-%llu.txt", keep,
                 (unsigned long long)seed);
        FILE *f = fopen(path, "w");
        if (f) {
          fprintf(f, "# %s\n", kept);
          schedule_print(&s, f);
          fclose(f);
        }
      }
      fflush(stdout);
    }
    schedule_free(&s);
    if (failures >= max_failures) break;
  }
  const double took = now_s() - start;
  printf("%llu schedules, %llu steps, %llu IDs in %.1f s (%.1f schedules/s): "
         "%d failed\n",
         (unsigned long long)runs, (unsigned long long)total_steps,
         (unsigned long long)total_ids, took, runs / (took > 0 ? took : 1),
         failures);
  return failures ? 1 : 0;
}
