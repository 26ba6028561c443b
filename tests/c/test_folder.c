/* The state folder within one process, on every platform (Windows too,
 * where test_state and test_pool, which fork, do not run): a held value is
 * refused to a second generator and free again once closed, the pool gives
 * distinct values, rollback=switch moves to another of them, the high-water
 * mark survives a restart, and bad folders and files are refused. */
#include "check.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <unistd.h>
#endif

static char folder[512];

static void file_in_folder(const char *name, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/%s", folder, name);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

static sfc_generator *open_gen(const sfc_layout *l, int64_t worker,
                               const char *dir, sfc_status *st,
                               sfc_error *err) {
  return check_generator(l, "worker", worker, dir, SFC_ROLLBACK_DEFAULT, st,
                         err);
}

static sfc_generator *open_pool(const sfc_layout *l, const char *dir,
                                sfc_status *st, sfc_error *err) {
  return check_pool_generator(l, "worker", dir, SFC_ROLLBACK_DEFAULT, st, err);
}

static uint64_t worker_of(const sfc_layout *l, sfc_generator *g) {
  uint64_t id = 0;
  sfc_error err;
  sfc_parts p;
  CHECK_STATUS(sfc_next(g, &id, &err), SFC_OK, err);
  sfc_decode(l, id, &p, NULL);
  return p.values[sfc_layout_field_index(l, "worker")];
}

static void held_value(const sfc_layout *l) {
  sfc_status st;
  sfc_error err;
  uint64_t before, after;
  sfc_generator *a = open_gen(l, 5, folder, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  CHECK_STATUS(sfc_next(a, &before, &err), SFC_OK, err);
  /* The same generator again in this process takes the value over: the
   * older one closed, its state written, the newer after its last ID. */
  sfc_generator *b = open_gen(l, 5, folder, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  CHECK(check_taken_over(a, "worker=5"), "the older one is taken over");
  sfc_generator_free(a);
  a = b;
  if (!a) return;
  CHECK_STATUS(sfc_next(a, &after, &err), SFC_OK, err);
  CHECK(after > before, "the newer one's IDs follow the older one's");
  before = after;
#if defined(_WIN32)
  /* Held open without FILE_SHARE_DELETE: no cleaner can remove it. */
  char lock[600];
  file_in_folder("worker-5.lock", lock, sizeof lock);
  CHECK(remove(lock) != 0, "the lock file of a live holder was deleted");
#endif
  sfc_generator_free(a);
  b = open_gen(l, 5, folder, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (b) {
    CHECK_STATUS(sfc_next(b, &after, &err), SFC_OK, err);
    CHECK(after > before, "after a restart, IDs follow the old ones");
  }
  sfc_generator_free(b);
}

static void pool(const sfc_layout *l) {
  enum { N = 4 };
  sfc_generator *g[N];
  uint64_t seen = 0;
  for (int i = 0; i < N; i++) {
    sfc_status st;
    sfc_error err;
    g[i] = open_pool(l, folder, &st, &err);
    CHECK_STATUS(st, SFC_OK, err);
    if (!g[i]) return;
    uint64_t w = worker_of(l, g[i]);
    CHECK(w < 64 && !(seen & (UINT64_C(1) << w)), "pool value %llu taken twice",
          (unsigned long long)w);
    seen |= UINT64_C(1) << (w & 63);
  }
  /* A value given back is free for the next generator. */
  uint64_t freed = worker_of(l, g[1]);
  sfc_generator_free(g[1]);
  sfc_status st;
  sfc_error err;
  g[1] = open_pool(l, folder, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (g[1])
    CHECK(worker_of(l, g[1]) == freed, "the freed value is taken again");
  for (int i = 0; i < N; i++)
    sfc_generator_free(g[i]);
}

static uint64_t worker_in(const sfc_layout *l, uint64_t id) {
  sfc_parts p;
  sfc_decode(l, id, &p, NULL);
  return p.values[sfc_layout_field_index(l, "worker")];
}

/* rollback=switch: a clock step back takes another value of the pool at
 * once; the old one stays held while its IDs are ahead of the clock. */
static void switch_on_rollback(const sfc_layout *l) {
  enum { N = 1000 };
  static uint64_t ids[3 * N];
  sfc_status st;
  sfc_error err;
  sfc_generator *g =
      check_pool_generator(l, "worker", folder, SFC_ROLLBACK_SWITCH, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (!g) return;
  const int64_t now = sfc_generator_now_us(g);
  sfc_stats s;
  char first_guard[SFC_MESSAGE_MAX];
  sfc_generator_stats(g, &s);
  snprintf(first_guard, sizeof first_guard, "%s",
           sfc_stats_text(&s, SFC_STAT_GUARD));
  CHECK_STATUS(check_issue_at(g, now, ids, N, &err), SFC_OK, err);
  CHECK_STATUS(check_issue_at(g, now - 3000000, ids + N, N, &err), SFC_OK, err);
  CHECK_STATUS(check_issue_at(g, now - 6000000, ids + 2 * N, N, &err), SFC_OK,
               err);
  uint64_t w0 = worker_in(l, ids[0]), w1 = worker_in(l, ids[N]),
           w2 = worker_in(l, ids[2 * N]);
  CHECK(w0 != w1 && w1 != w2 && w0 != w2, "three values: %llu %llu %llu",
        (unsigned long long)w0, (unsigned long long)w1, (unsigned long long)w2);
  sfc_generator_stats(g, &s);
  /* The stat guard names the claim of the value in use, not the first. */
  const char *guard = sfc_stats_text(&s, SFC_STAT_GUARD);
  CHECK(!strncmp(first_guard, "held: ", 6) ? strcmp(guard, first_guard) != 0
                                           : !strcmp(guard, first_guard),
        "the guard after the switches: %s (first: %s)", guard, first_guard);
  CHECK(sfc_stats_uint(&s, SFC_STAT_NODE_SWITCHES) == 2 &&
            stats_node(&s, 0) == w2,
        "two switches counted (%llu), the stats show the value in use",
        (unsigned long long)sfc_stats_uint(&s, SFC_STAT_NODE_SWITCHES));
  CHECK(check_duplicates(ids, 3 * N) == 0, "no duplicate across switches");
  /* The clock's IDs after them carry the value in use (before, they went on
   * from what the start handed over: under the first value, parked). */
  uint64_t clock_id = 0;
  CHECK_STATUS(sfc_next(g, &clock_id, &err), SFC_OK, err);
  CHECK(worker_in(l, clock_id) == w2, "the clock's ID under %llu, not %llu",
        (unsigned long long)w2, (unsigned long long)worker_in(l, clock_id));

  /* The parked values are held until the clock passes their marks, 16 ms
   * (the hand-over's reserve) past the clock of their last IDs: a third
   * generator made before then takes neither. A slower host (wine) may
   * only check that it takes no value in use. */
  const bool parked = sfc_generator_now_us(g) - now < 15000;
  sfc_generator *h = open_pool(l, folder, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (h) {
    uint64_t wh = worker_of(l, h);
    CHECK(wh != w2 && (!parked || (wh != w0 && wh != w1)),
          "a %s value was given to another generator: %llu",
          wh == w2 ? "live" : "parked", (unsigned long long)wh);
  }
  sfc_generator_free(h);
  sfc_generator_free(g);

  /* Each value is handed over as its last IDs left it (the generator's
   * first ID was at a caller's time: before, a switched-away value was
   * handed over with the mark -1, a record no later generator of it could
   * read). A successor goes on after them, or waits for the clock to pass
   * the mark written ahead of them. */
  const uint64_t values[] = {w0, w1, w2};
  for (int i = 0; i < 3; i++) {
    sfc_generator *v = open_gen(l, (int64_t)values[i], folder, &st, &err);
    uint64_t id = 0;
    st = v ? sfc_next(v, &id, &err) : st;
    CHECK(st == SFC_OK || st == SFC_CLOCK_MOVED_BACKWARDS,
          "value %llu taken again after the switches: %s",
          (unsigned long long)values[i], err.message);
    for (int k = 0; st == SFC_OK && k < 3 * N; k++)
      if (worker_in(l, ids[k]) == values[i] && ids[k] >= id) {
        CHECK(false, "value %llu: %llu issued again or before %llu",
              (unsigned long long)values[i], (unsigned long long)id,
              (unsigned long long)ids[k]);
        break;
      }
    sfc_generator_free(v);
  }

  /* Only for pool generators. */
  g = check_generator(l, "worker", 3, folder, SFC_ROLLBACK_SWITCH, &st, &err);
  CHECK(!g && st == SFC_INVALID_ARGUMENT && strstr(err.message, "auto"),
        "switch with a static value: %s", err.message);
}

static void bad_files(const sfc_layout *l) {
  sfc_status st;
  sfc_error err;
  char path[600];
  file_in_folder("worker-9.state", path, sizeof path);
  write_file(path, "snowflake-c state 1\nmark 12\n");
  sfc_generator *g = open_gen(l, 9, folder, &st, &err);
  CHECK(!g && st == SFC_STATE_ERROR && strstr(err.message, "unreadable"),
        "a corrupt state file is refused: %s", err.message);
  sfc_generator_free(g);
  remove(path);

  file_in_folder("plain-file", path, sizeof path);
  write_file(path, "not a folder\n");
  g = open_gen(l, 1, path, &st, &err);
  CHECK(!g && st == SFC_STATE_ERROR, "a file as state_dir: %s", err.message);
  sfc_generator_free(g);
  remove(path);
}

/* Removes what the tests left: the lock and state files of a few values. */
static void clean_folder(void) {
  char path[600];
  const char *kinds[] = {".lock", ".state"};
  for (int w = 0; w < 64; w++)
    for (int k = 0; k < 2; k++) {
      char name[32];
      snprintf(name, sizeof name, "worker-%d%s", w, kinds[k]);
      file_in_folder(name, path, sizeof path);
      remove(path);
    }
#if defined(_WIN32)
  RemoveDirectoryA(folder);
#else
  rmdir(folder);
#endif
}

int main(void) {
  sfc_layout l = check_layout("time:41@1ms,worker:6,seq:16", check_run_epoch());
  check_temp_folder("folder", folder, sizeof folder);
  held_value(&l);
  pool(&l);
  switch_on_rollback(&l);
  bad_files(&l);
  clean_folder();
  return check_summary();
}
