/* Durations: their text, the one rounding rule and the range check, for
 * every binding's duration type. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A duration for a message: "-0.5 ms", "1.000001 ms", or in seconds when
 * too long to count in ns. */
static void format_duration(int64_t seconds, int64_t nanos, char *buf,
                            size_t cap) {
  if (seconds < -9000000000 || seconds > 9000000000) {
    snprintf(buf, cap, "%lld s", (long long)seconds);
    return;
  }
  int64_t ns = seconds * 1000000000 + nanos;
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char frac[8];
  snprintf(frac, sizeof frac, ".%06llu", (unsigned long long)(mag % 1000000));
  for (size_t n = strlen(frac); n > 0 && (frac[n - 1] == '0' || n == 1); n--)
    frac[n - 1] = '\0';
  snprintf(buf, cap, "%s%llu%s ms", ns < 0 ? "-" : "",
           (unsigned long long)(mag / 1000000), frac);
}

/* "250", "250ms", "1.5s", "800us": a number of ms unless a unit says
 * otherwise, as seconds + nanos for the one rounding rule (a fraction of a
 * nanosecond rounds up too). */
bool sfc_duration_parse(const char *text, size_t len, int64_t *seconds,
                        int64_t *nanos) {
  const char *p = text, *end = text + len;
  const bool negative = p < end && *p == '-';
  p += negative;
  int64_t whole = 0, frac = 0, scale = 1;
  int digits = 0, frac_digits = 0;
  bool rest = false;
  for (; p < end && isdigit((unsigned char)*p); p++, digits++) {
    if (whole > INT64_C(100000000000)) return false;
    whole = whole * 10 + (*p - '0');
  }
  if (p < end && *p == '.') {
    for (p++; p < end && isdigit((unsigned char)*p); p++, frac_digits++) {
      if (frac_digits < 9) {
        frac = frac * 10 + (*p - '0');
        scale *= 10;
      } else if (*p != '0') {
        rest = true;
      }
    }
    if (!frac_digits) return false;
  }
  if (!digits && !frac_digits) return false;
  size_t unit_len = (size_t)(end - p);
  int64_t unit_ns;
  if (unit_len == 0 || (unit_len == 2 && memcmp(p, "ms", 2) == 0))
    unit_ns = 1000000;
  else if (unit_len == 1 && *p == 's')
    unit_ns = 1000000000;
  else if (unit_len == 2 && memcmp(p, "us", 2) == 0)
    unit_ns = 1000;
  else
    return false;
  int64_t product = frac * unit_ns; /* < 10^18 */
  int64_t frac_ns = product / scale + ((product % scale) || rest ? 1 : 0);
  int64_t per_second = 1000000000 / unit_ns;
  *seconds = whole / per_second;
  *nanos = whole % per_second * unit_ns + frac_ns;
  *seconds += *nanos / 1000000000;
  *nanos %= 1000000000;
  if (negative && (*seconds || *nanos)) { /* -(s + n) = -(s + 1) + (1e9 - n) */
    *seconds = -*seconds - (*nanos > 0);
    *nanos = *nanos ? 1000000000 - *nanos : 0;
  }
  return true;
}

sfc_status sfc_duration_check(const char *name, int64_t min_ms, int64_t max_ms,
                              int64_t seconds, int64_t nanos, int64_t *ms,
                              sfc_error *err) {
  if (nanos < 0 || nanos > 999999999)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s: nanoseconds %lld are outside 0..999999999", name,
                    (long long)nanos);
  if (seconds < 0) {
    char text[48];
    format_duration(seconds, nanos, text, sizeof text);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s must not be negative (got %s): give %lld to %lld ms",
                    name, text, (long long)min_ms, (long long)max_ms);
  }
  /* Rounded up: any part of a millisecond counts as a whole one. */
  int64_t extra_ms = (nanos + 999999) / 1000000;
  if (seconds > max_ms / 1000 + 1 || seconds * 1000 + extra_ms > max_ms) {
    char text[48];
    format_duration(seconds, nanos, text, sizeof text);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s is %s, past its maximum of %lld ms: give %lld to %lld "
                    "ms",
                    name, text, (long long)max_ms, (long long)min_ms,
                    (long long)max_ms);
  }
  if (seconds * 1000 + extra_ms < min_ms)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s must be at least %lld ms: give %lld to %lld ms", name,
                    (long long)min_ms, (long long)min_ms, (long long)max_ms);
  *ms = seconds * 1000 + extra_ms;
  return SFC_OK;
}

sfc_status sfc_duration_check_double(const char *name, int64_t min_ms,
                                     int64_t max_ms, double ms, int64_t *out,
                                     sfc_error *err) {
  if (ms != ms || ms - ms != 0) /* NaN, or an infinity */
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s must be a finite number of milliseconds", name);
  /* The magnitude as whole ms and the rest in ns (ms - whole is exact).
   * A positive rest is rounded up, as the rule says; a negative duration
   * is refused anyway, its rest rounded to nearest for the message. */
  const bool negative = ms < 0;
  const double m = negative ? -ms : ms;
  /* Far past every range, the magnitude is clamped: refused all the same. */
  const int64_t whole = m < 9e15 ? (int64_t)m : INT64_C(9000000000000000);
  const double rest_ns = m < 9e15 ? (m - (double)whole) * 1e6 : 0;
  int64_t rest = (int64_t)rest_ns;
  if (negative)
    rest = (int64_t)(rest_ns + 0.5);
  else if ((double)rest < rest_ns)
    rest++;
  int64_t seconds, nanos;
  if (!negative) {
    seconds = whole / 1000;
    nanos = whole % 1000 * 1000000 + rest;
    if (nanos >= 1000000000) {
      seconds++;
      nanos -= 1000000000;
    }
  } else {
    /* -T ns as seconds (negative) + nanos (0..999999999). */
    int64_t t = whole < INT64_C(9000000000000) ? whole * 1000000 + rest
                                               : INT64_C(9000000000000000000);
    seconds = -((t + 999999999) / 1000000000);
    nanos = -seconds * 1000000000 - t;
  }
  return sfc_duration_check(name, min_ms, max_ms, seconds, nanos, out, err);
}
