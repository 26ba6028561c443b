/* What a node value leaves behind for its next holder (sfc_saved): the
 * text both the state file and the hand-over record end with, and its
 * checksum. Both files are trusted with uniqueness and read as hostile
 * input: parsed strictly, a number out of range is refused. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sfc_saved_clear(sfc_saved *s) {
  s->mark = 0;
  s->clock = 0;
  s->unclean = false;
  for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
    s->last[c] = SFC_NEVER;
}

void sfc_saved_normalize(sfc_saved *s) {
  if (s->last[s->clock] < s->mark) s->last[s->clock] = s->mark;
}

/* By clock value: the mark bounds the clock value in force, so it joins
 * that value's last tick before the tables are merged; a record whose
 * clock value was moved past by another keeps what it says of each. */
void sfc_saved_merge(sfc_saved *into, const sfc_saved *from) {
  sfc_saved f = *from;
  sfc_saved_normalize(&f);
  sfc_saved_normalize(into);
  if (f.mark > into->mark) {
    into->mark = f.mark;
    into->clock = f.clock;
  }
  for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
    if (f.last[c] > into->last[c]) into->last[c] = f.last[c];
  into->unclean = into->unclean || f.unclean;
}

int64_t sfc_saved_latest(const sfc_saved *s) {
  int64_t latest = s->mark;
  for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
    if (s->last[c] > latest) latest = s->last[c];
  return latest;
}

size_t sfc_saved_print(const sfc_saved *s, uint64_t clock_max, char *buf,
                       size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "mark %lld\nclock %llu\nlast",
                              (long long)s->mark, (unsigned long long)s->clock);
  for (uint64_t c = 0; c <= clock_max && n < cap; c++)
    n += (size_t)snprintf(buf + n, cap - n, " %lld", (long long)s->last[c]);
  if (n < cap) n += (size_t)snprintf(buf + n, cap - n, "\n");
  return n;
}

char *sfc_text_line(char **p, const char *key) {
  size_t k = strlen(key);
  if (strncmp(*p, key, k) != 0 || (*p)[k] != ' ') return NULL;
  char *value = *p + k + 1, *end = strchr(value, '\n');
  if (!end) return NULL;
  *end = '\0';
  *p = end + 1;
  return value;
}

bool sfc_text_number(const char *text, long long min, long long *out) {
  if (!text || !*text || strlen(text) > 19) return false;
  if (text[0] != '-' && (text[0] < '0' || text[0] > '9')) return false;
  char *end;
  long long v = strtoll(text, &end, 10);
  if (*end || v < min) return false;
  *out = v;
  return true;
}

const char *sfc_saved_parse(char *text, uint64_t clock_max, uint64_t time_max,
                            sfc_saved *out) {
  char *p = text;
  long long mark, clock;
  if (!sfc_text_number(sfc_text_line(&p, "mark"), 0, &mark) ||
      !sfc_text_number(sfc_text_line(&p, "clock"), 0, &clock))
    return "malformed contents";
  if ((uint64_t)mark > time_max || (uint64_t)clock > clock_max)
    return "values out of range";
  char *last = sfc_text_line(&p, "last");
  if (!last || *p) return "bad clock table";
  sfc_saved s;
  sfc_saved_clear(&s);
  for (uint64_t c = 0; c <= clock_max; c++) {
    char *end;
    if (c > 0 && *last++ != ' ') return "bad clock table";
    if (!(last[0] == '-' || (last[0] >= '0' && last[0] <= '9')))
      return "bad clock table";
    long long v = strtoll(last, &end, 10);
    if (end == last || v < SFC_NEVER || (v > 0 && (uint64_t)v > time_max))
      return "bad clock table";
    s.last[c] = v;
    last = end;
  }
  if (*last) return "bad clock table";
  s.mark = mark;
  s.clock = (uint64_t)clock;
  *out = s;
  return NULL;
}

size_t sfc_check_append(char *buf, size_t n, size_t cap) {
  int k = snprintf(buf + n, cap - n, "check %016llx\n",
                   (unsigned long long)sfc_fnv1a(SFC_FNV_OFFSET, buf, n));
  return k > 0 && n + (size_t)k < cap ? n + (size_t)k : 0;
}

const char *sfc_check_verify(const char *buf, size_t n, size_t *body,
                             size_t *end) {
  if (strlen(buf) != n) return "binary content";
  const char *check = strstr(buf, "check ");
  while (check && check != buf && check[-1] != '\n')
    check = strstr(check + 1, "check ");
  if (!check) return "truncated: no checksum";
  unsigned long long sum;
  char tail;
  if (sscanf(check, "check %16llx%c", &sum, &tail) != 2 || tail != '\n' ||
      check[22] != '\n')
    return "truncated checksum";
  if (sum != sfc_fnv1a(SFC_FNV_OFFSET, buf, (size_t)(check - buf)))
    return "checksum mismatch";
  *body = (size_t)(check - buf);
  *end = *body + 23;
  return NULL;
}
