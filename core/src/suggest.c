/* "did you mean …?": the names near a mistyped one, for the core's own
 * unknown-option message and for every host's (the CLI's commands and
 * flags). */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The optimal string alignment distance: insertions, deletions,
 * substitutions and swaps of two neighbours. SIZE_MAX for text too long to
 * be a mistyped name. */
static size_t distance(const char *a, size_t n, const char *b) {
  enum { LONGEST = 48 };
  size_t m = strlen(b);
  if (n >= LONGEST || m >= LONGEST) return SIZE_MAX;
  size_t d[LONGEST][LONGEST];
  for (size_t i = 0; i <= n; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= m; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

size_t sfc_suggest(const char *typed, size_t len, const char *const *names,
                   size_t count, const char *prefix, const char *quote,
                   char *out, size_t cap) {
  enum { MOST = 3 };
  const char *picked[MOST];
  size_t np = 0;
  if (cap) out[0] = '\0';
  if (!typed || len == 0 || !cap) return 0;
  for (size_t i = 0; i < count && np < MOST; i++)
    if (strlen(names[i]) > len && strncmp(typed, names[i], len) == 0)
      picked[np++] = names[i];
  if (np == 0) {
    size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3, best = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
      size_t d = distance(typed, len, names[i]);
      if (d <= limit && d < best) best = d;
    }
    for (size_t i = 0; i < count && np < MOST && best != SIZE_MAX; i++)
      if (distance(typed, len, names[i]) == best) picked[np++] = names[i];
  }
  if (np == 0) return 0;
  size_t w = (size_t)snprintf(out, cap, ": did you mean ");
  for (size_t i = 0; i < np && w < cap; i++)
    w += (size_t)snprintf(out + w, cap - w, "%s%s%s%s%s",
                          i == 0        ? ""
                          : i + 1 == np ? " or "
                                        : ", ",
                          quote, prefix, picked[i], quote);
  if (w < cap) w += (size_t)snprintf(out + w, cap - w, "?");
  return w < cap ? w : cap - 1;
}
