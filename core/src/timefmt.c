/* ISO-8601 UTC formatting and parsing; epochs. */
#include "internal.h"

#include <string.h>

/* Howard Hinnant's days_from_civil / civil_from_days: exact for any year. */
int64_t sfc_days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
  *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* `width` decimal digits of v, zero-padded, at p; returns the end. */
static char *put_digits(char *p, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; i--) {
    p[i] = (char)('0' + v % 10);
    v /= 10;
  }
  return p + width;
}

/* By hand, not snprintf: a decoder formats one per ID. */
size_t sfc_format_iso(int64_t unix_ms, char *buf, size_t cap) {
  int64_t days = floor_div(unix_ms, 86400000);
  int64_t rest = unix_ms % 86400000; /* not unix_ms - days * ...: overflows */
  if (rest < 0) rest += 86400000;
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  char text[SFC_ISO_MAX], *p = text;
  if (y >= 0 && y <= 9999) {
    p = put_digits(p, (uint64_t)y, 4);
  } else { /* ISO-8601's expanded years: a sign and six digits or more */
    *p++ = y < 0 ? '-' : '+';
    const uint64_t a = (uint64_t)(y < 0 ? -y : y);
    int width = 6;
    for (uint64_t v = a / 1000000; v; v /= 10)
      width++;
    p = put_digits(p, a, width);
  }
  *p++ = '-';
  p = put_digits(p, m, 2);
  *p++ = '-';
  p = put_digits(p, d, 2);
  *p++ = 'T';
  p = put_digits(p, (uint64_t)(rest / 3600000), 2);
  *p++ = ':';
  p = put_digits(p, (uint64_t)(rest / 60000 % 60), 2);
  *p++ = ':';
  p = put_digits(p, (uint64_t)(rest / 1000 % 60), 2);
  *p++ = '.';
  p = put_digits(p, (uint64_t)(rest % 1000), 3);
  *p++ = 'Z';
  const size_t n = (size_t)(p - text);
  if (cap) { /* as snprintf: what fits, always ended */
    const size_t k = n < cap ? n : cap - 1;
    memcpy(buf, text, k);
    buf[k] = '\0';
  }
  return n;
}

static bool digits(const char **p, int count, int64_t *out) {
  int64_t v = 0;
  for (int i = 0; i < count; i++) {
    char c = (*p)[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *p += count;
  *out = v;
  return true;
}

static bool parse_iso(const char *s, int64_t *ms_out) {
  int64_t y, mo, d, h = 0, mi = 0, sec = 0, frac = 0;
  const char *p = s;
  if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
      !digits(&p, 2, &d))
    return false;
  if (*p == 'T' || *p == ' ') {
    p++;
    if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi)) return false;
    if (*p == ':') {
      p++;
      if (!digits(&p, 2, &sec)) return false;
      if (*p == '.') {
        p++;
        int n = 0;
        int64_t scale = 100;
        while (*p >= '0' && *p <= '9') {
          if (n++ < 3) frac += (*p - '0') * scale;
          scale /= 10;
          p++;
        }
        if (n == 0) return false;
      }
    }
    if (*p == 'Z')
      p++;
    else if (strcmp(p, "+00:00") == 0)
      p += 6;
    else
      return false;
  }
  if (*p != '\0') return false;
  static const unsigned mdays[] = {31, 29, 31, 30, 31, 30,
                                   31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 ||
      sec > 59)
    return false;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo == 2 && d == 29 && !leap) return false;
  int64_t days = sfc_days_from_civil(y, (unsigned)mo, (unsigned)d);
  *ms_out = ((days * 24 + h) * 60 + mi) * 60000 + sec * 1000 + frac;
  return true;
}

sfc_status sfc_epoch_parse(const char *text, int64_t *epoch_ms,
                           sfc_error *err) {
  if (!text || !*text)
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "the epoch is empty: give Unix milliseconds "
                    "(1288834974657) or an ISO-8601 UTC instant (2024-01-01)");
  const char *p = text;
  bool all_digits = true;
  for (; *p; p++)
    if (*p < '0' || *p > '9') all_digits = false;
  if (all_digits) {
    if (strlen(text) > 15)
      return sfc_fail(err, SFC_INVALID_LAYOUT,
                      "epoch '%s' is too large for Unix milliseconds", text);
    int64_t v = 0;
    for (p = text; *p; p++)
      v = v * 10 + (*p - '0');
    *epoch_ms = v;
    return SFC_OK;
  }
  int64_t ms;
  if (!parse_iso(text, &ms))
    return sfc_fail(err, SFC_INVALID_LAYOUT,
                    "epoch '%s' is neither Unix milliseconds nor an ISO-8601 "
                    "UTC instant such as 2024-01-01T00:00:00Z",
                    text);
  *epoch_ms = ms;
  return SFC_OK;
}
