/* Duration options: one rounding rule and one range check for every
 * binding's duration type. */
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

/* The duration option called `option` in any casing, or NULL. */
static const sfc_option_info *duration_option(const char *option) {
  const sfc_option_info *o =
      option ? sfc_option_find(option, strlen(option)) : NULL;
  return o && o->type == SFC_TYPE_DURATION ? o : NULL;
}

static sfc_status not_duration(const char *option, sfc_error *err) {
  return sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "'%s' is not a duration option: use max_wait, max_drift "
                  "or state_reserve",
                  option ? option : "(null)");
}

sfc_status sfc_duration_ms(const char *option, int64_t seconds, int64_t nanos,
                           int64_t *ms, sfc_error *err) {
  const sfc_option_info *o = duration_option(option);
  if (!o) return not_duration(option, err);
  return sfc_duration_check(option, o->min, o->max, seconds, nanos, ms, err);
}

sfc_status sfc_duration_ms_from_double(const char *option, double ms,
                                       int64_t *out, sfc_error *err) {
  const sfc_option_info *o = duration_option(option);
  if (!o) return not_duration(option, err);
  return sfc_duration_check_double(option, o->min, o->max, ms, out, err);
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
