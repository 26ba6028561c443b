/* snprintf and vsnprintf for the WebAssembly build, in place of the C
 * library's: the core formats messages and file texts only, with the
 * conversions d i u o x X c s p % (flags - 0 + space, width and precision,
 * `*` for either, the lengths hh h l ll z j t) and one %g. The library's
 * general printf and the 128-bit floating point its %g needs are about a
 * fifth of the module. tests: bindings/wasm/format_test.c compares this with
 * the C library's on every format the core uses. */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(SFC_FORMAT_TEST)
#define snprintf sfc_test_snprintf
#define vsnprintf sfc_test_vsnprintf
int sfc_test_snprintf(char *buf, size_t cap, const char *fmt, ...);
int sfc_test_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);
#endif

typedef struct out {
  char *buf;
  size_t cap, len; /* len counts what would have been written */
} out;

static void put(out *o, char c) {
  if (o->len + 1 < o->cap) o->buf[o->len] = c;
  o->len++;
}

static void put_n(out *o, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    put(o, s[i]);
}

static void pad(out *o, char c, size_t n) {
  for (size_t i = 0; i < n; i++)
    put(o, c);
}

typedef struct spec {
  bool left, zero, plus, space;
  int width;     /* 0: none */
  int precision; /* -1: none */
} spec;

/* A number's sign or prefix, then its digits, padded to the width. */
static void emit(out *o, const spec *s, const char *sign, const char *digits,
                 size_t n) {
  size_t sn = strlen(sign);
  size_t zeros = s->precision >= 0 && (size_t)s->precision > n
                     ? (size_t)s->precision - n
                     : 0;
  size_t body = sn + zeros + n;
  size_t fill =
      s->width > 0 && (size_t)s->width > body ? (size_t)s->width - body : 0;
  if (!s->left && !(s->zero && s->precision < 0)) pad(o, ' ', fill);
  put_n(o, sign, sn);
  if (!s->left && s->zero && s->precision < 0) pad(o, '0', fill);
  pad(o, '0', zeros);
  put_n(o, digits, n);
  if (s->left) pad(o, ' ', fill);
}

static void emit_unsigned(out *o, const spec *s, const char *sign, uintmax_t v,
                          unsigned base, bool upper) {
  const char *alphabet = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char digits[64];
  size_t n = 0;
  if (!(v == 0 && s->precision == 0)) {
    do {
      digits[sizeof digits - 1 - n++] = alphabet[v % base];
      v /= base;
    } while (v);
  }
  emit(o, s, sign, digits + sizeof digits - n, n);
}

/* d's six significant digits from decimal exponent e, rounded: d scaled
 * once by a power of ten (exact up to 10^22), so that it rounds once. */
static uint64_t six_digits(double d, int e) {
  int k = 5 - e;
  for (; k > 300; k -= 100) /* 10^k itself would overflow */
    d *= 1e100;
  double p10 = 1;
  for (int i = 0; i < (k < 0 ? -k : k); i++)
    p10 *= 10;
  double scaled = k < 0 ? d / p10 : d * p10;
  return (uint64_t)(scaled + 0.5);
}

/* %g: six significant digits, the shorter of fixed and exponent forms,
 * trailing zeros dropped. */
static void emit_g(out *o, const spec *s, double d) {
  char text[40];
  size_t n = 0;
  const char *sign = d < 0 || (d == 0 && 1 / d < 0) ? "-"
                     : s->plus                      ? "+"
                     : s->space                     ? " "
                                                    : "";
  if (d < 0) d = -d;
  if (d != d) {
    emit(o, &(spec){s->left, false, false, false, s->width, -1}, sign, "nan",
         3);
    return;
  }
  if (d > 1.7976931348623157e308) {
    emit(o, &(spec){s->left, false, false, false, s->width, -1}, sign, "inf",
         3);
    return;
  }
  int e = 0;
  uint64_t m = 0; /* 6 digits: d ~ m * 10^(e - 5) */
  if (d != 0) {
    double x = d;
    while (x >= 10) {
      x /= 10;
      e++;
    }
    while (x < 1) {
      x *= 10;
      e--;
    }
    m = six_digits(d, e);
    if (m < 100000) m = six_digits(d, --e);
    if (m >= 1000000) m = six_digits(d, ++e);
    if (m >= 1000000) m = 100000; /* 999999.5 rounded up to the next power */
  }
  char digits[6];
  for (int i = 5; i >= 0; i--) {
    digits[i] = (char)('0' + m % 10);
    m /= 10;
  }
  int last = 5; /* the last digit kept: no trailing zeros */
  while (last > 0 && digits[last] == '0')
    last--;
  if (e < -4 || e >= 6) {
    text[n++] = digits[0];
    if (last > 0) {
      text[n++] = '.';
      for (int i = 1; i <= last; i++)
        text[n++] = digits[i];
    }
    text[n++] = 'e';
    text[n++] = e < 0 ? '-' : '+';
    int a = e < 0 ? -e : e;
    if (a >= 100) text[n++] = (char)('0' + a / 100);
    text[n++] = (char)('0' + a / 10 % 10);
    text[n++] = (char)('0' + a % 10);
  } else if (e >= 0) {
    for (int i = 0; i <= e; i++)
      text[n++] = digits[i];
    if (last > e) {
      text[n++] = '.';
      for (int i = e + 1; i <= last; i++)
        text[n++] = digits[i];
    }
  } else {
    text[n++] = '0';
    text[n++] = '.';
    for (int i = 0; i < -e - 1; i++)
      text[n++] = '0';
    for (int i = 0; i <= last; i++)
      text[n++] = digits[i];
  }
  emit(o, &(spec){s->left, s->zero, false, false, s->width, -1}, sign, text, n);
}

int vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) {
  out o = {buf, cap, 0};
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') {
      put(&o, *p);
      continue;
    }
    spec s = {false, false, false, false, 0, -1};
    for (;; p++) {
      if (p[1] == '-')
        s.left = true;
      else if (p[1] == '0')
        s.zero = true;
      else if (p[1] == '+')
        s.plus = true;
      else if (p[1] == ' ')
        s.space = true;
      else
        break;
    }
    p++;
    if (*p == '*') {
      s.width = va_arg(ap, int);
      if (s.width < 0) {
        s.left = true;
        s.width = -s.width;
      }
      p++;
    } else {
      while (*p >= '0' && *p <= '9')
        s.width = s.width * 10 + (*p++ - '0');
    }
    if (*p == '.') {
      p++;
      s.precision = 0;
      if (*p == '*') {
        s.precision = va_arg(ap, int);
        p++;
      } else {
        while (*p >= '0' && *p <= '9')
          s.precision = s.precision * 10 + (*p++ - '0');
      }
    }
    int longs = 0; /* hh -2, h -1, l 1, ll 2, j 3, z 4, t 5 */
    for (;; p++) {
      if (*p == 'h')
        longs = longs == -1 ? -2 : -1;
      else if (*p == 'l')
        longs = longs == 1 ? 2 : 1;
      else if (*p == 'j')
        longs = 3;
      else if (*p == 'z')
        longs = 4;
      else if (*p == 't')
        longs = 5;
      else
        break;
    }
    switch (*p) {
    case 'd':
    case 'i': {
      intmax_t v;
      if (longs == 2)
        v = va_arg(ap, long long);
      else if (longs == 1)
        v = va_arg(ap, long);
      else if (longs == 3)
        v = va_arg(ap, intmax_t);
      else if (longs == 4) /* the signed type of size_t's width */
        v = (intmax_t)(ptrdiff_t)va_arg(ap, size_t);
      else if (longs == 5)
        v = va_arg(ap, ptrdiff_t);
      else
        v = va_arg(ap, int);
      if (longs == -1) v = (short)v;
      if (longs == -2) v = (signed char)v;
      const char *sign = v < 0 ? "-" : s.plus ? "+" : s.space ? " " : "";
      uintmax_t u = v < 0 ? (uintmax_t)0 - (uintmax_t)v : (uintmax_t)v;
      emit_unsigned(&o, &s, sign, u, 10, false);
      break;
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X': {
      uintmax_t v;
      if (longs == 2)
        v = va_arg(ap, unsigned long long);
      else if (longs == 1)
        v = va_arg(ap, unsigned long);
      else if (longs == 3)
        v = va_arg(ap, uintmax_t);
      else if (longs == 4)
        v = va_arg(ap, size_t);
      else if (longs == 5)
        v = (uintmax_t)(size_t)va_arg(ap, ptrdiff_t);
      else
        v = va_arg(ap, unsigned);
      if (longs == -1) v = (unsigned short)v;
      if (longs == -2) v = (unsigned char)v;
      unsigned base = *p == 'u' ? 10 : *p == 'o' ? 8 : 16;
      emit_unsigned(&o, &s, "", v, base, *p == 'X');
      break;
    }
    case 'p':
      emit_unsigned(&o, &(spec){s.left, false, false, false, s.width, -1}, "0x",
                    (uintptr_t)va_arg(ap, void *), 16, false);
      break;
    case 'c': {
      char c = (char)va_arg(ap, int);
      emit(&o, &(spec){s.left, false, false, false, s.width, -1}, "", &c, 1);
      break;
    }
    case 's': {
      const char *t = va_arg(ap, const char *);
      if (!t) t = "(null)";
      size_t n = 0;
      while ((s.precision < 0 || n < (size_t)s.precision) && t[n])
        n++;
      emit(&o, &(spec){s.left, false, false, false, s.width, -1}, "", t, n);
      break;
    }
    case 'g':
      emit_g(&o, &s, va_arg(ap, double));
      break;
    case '%':
      put(&o, '%');
      break;
    default: /* not a conversion the core uses: written as it stands */
      put(&o, '%');
      if (!*p)
        p--;
      else
        put(&o, *p);
    }
  }
  if (o.cap) o.buf[o.len < o.cap ? o.len : o.cap - 1] = '\0';
  return o.len > INT_MAX ? -1 : (int)o.len;
}

int snprintf(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
  return n;
}
