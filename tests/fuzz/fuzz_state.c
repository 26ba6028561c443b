/* libFuzzer harness: the state-file reader.
 *
 * The input is written as <dir>/worker-1.state and a generator with the
 * default preset, worker 1 and that state directory is created. The file
 * format is "snowflake-c state 1\nlayout …\nepoch …\nnode …\nmark …\n
 * clock …\nlast …\ncheck <fnv1a-64 of everything before>\n". A checksum is
 * hard for a fuzzer to forge, so when the first byte is '#' the harness drops
 * it, drops any check line and appends the right checksum: the parser behind
 * the checksum gets explored too.
 *
 * Checks: creation succeeds or fails with SFC_STATE_ERROR (never anything
 * else, never a crash); when it succeeds, IDs under the file's clock value
 * come after its mark, and IDs under another clock value after that value's
 * last tick in the clock table. */
#define _GNU_SOURCE
#include "fuzz.h"
#include "snowflake_c.h"

#include "../c/set_options.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];
static char path[300];
static sfc_layout layout;

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

static void cleanup(void) {
  char p[320];
  snprintf(p, sizeof p, "%s/worker-1.state", dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/worker-1.state.tmp", dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/worker-1.lock", dir);
  unlink(p);
  rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  /* A memory file system when there is one: every run writes and syncs
   * the state file, which a disk would pay for. */
  const char *tmp = getenv("TMPDIR");
  if (!tmp) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/sfc-fuzz-state-XXXXXX", tmp);
  if (!mkdtemp(dir)) abort();
  snprintf(path, sizeof path, "%s/worker-1.state", dir);
  atexit(cleanup);
  sfc_error err;
  if (sfc_layout_preset("default", &layout, &err) != SFC_OK) abort();
  return 0;
}

/* The mark, clock and clock table written in the file, when they can be
 * read plainly. Returns how many clock-table entries were read, -1 if the
 * mark or the clock could not be. */
static int file_values(const char *text, long long *mark,
                       unsigned long long *clock, long long last[8]) {
  const char *m = strstr(text, "\nmark ");
  const char *c = strstr(text, "\nclock ");
  const char *l = strstr(text, "\nlast");
  if (!m || !c || sscanf(m, "\nmark %lld", mark) != 1 ||
      sscanf(c, "\nclock %llu", clock) != 1)
    return -1;
  int k = 0;
  if (l) {
    l += 5;
    while (k < 8) {
      char *end;
      long long v = strtoll(l, &end, 10);
      if (end == l) break;
      last[k++] = v;
      l = end;
    }
  }
  return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 40);
  if (!text) return 0;
  size_t n = size;
  memcpy(text, data, size);
  if (size && data[0] == '#') {
    memmove(text, text + 1, size - 1);
    n = size - 1;
    text[n] = '\0';
    char *check = NULL;
    for (char *c = text; (c = memmem(c, n - (size_t)(c - text), "check ", 6));
         c++)
      if (c == text || c[-1] == '\n') check = c;
    if (check) n = (size_t)(check - text);
    n += (size_t)snprintf(text + n, 40, "check %016" PRIx64 "\n",
                          fnv1a(text, n));
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) abort();
  if (write(fd, text, n) != (ssize_t)n) abort();
  close(fd);
  text[n] = '\0';

  sfc_node_value node[] = {{"worker", 1, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_text(&opts, SFC_OPTION_STATE_DIR, dir);
  /* What a state file claims would be handed over to the host's next
   * holder of the value: the fuzzer's files must not reach the machine. */
  set_bool(&opts, SFC_OPTION_GUARD, false);
  sfc_generator *gen = NULL;
  sfc_error err;
  sfc_status st = sfc_generator_new(&layout, &opts, &gen, &err);
  if (st != SFC_OK) {
    CHECK(st == SFC_STATE_ERROR && err.status == st);
    CHECK(strstr(err.message, dir) != NULL);
    free(text);
    return 0;
  }
  long long mark = -1, last[8];
  unsigned long long clock = 0;
  int table = file_values(text, &mark, &clock, last);
  for (int i = 0; i < 4; i++) {
    uint64_t id;
    int64_t wait_us = 0;
    st = sfc_next_now(gen, &id, &wait_us, &err);
    if (st != SFC_OK) continue;
    sfc_parts p;
    CHECK(sfc_decode(&layout, id, &p, &err) == SFC_OK);
    /* values[0] is the tick, values[1] the clock field: the file's clock
     * value resumes after its mark; another one after its last tick. */
    long long tick = (long long)p.values[0];
    if (table >= 0 && p.values[1] == clock) CHECK(tick > mark);
    if (table >= 0 && p.values[1] != clock && (int)p.values[1] < table)
      CHECK(tick > last[p.values[1]]);
  }
  sfc_generator_free(gen);
  free(text);
  return 0;
}
