/* Compares format.c with the C library's snprintf on the formats the core
 * uses (bindings/wasm/build runs it natively before building the module):
 * exits 1, naming each difference, when any output or length differs. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int sfc_test_snprintf(char *buf, size_t cap, const char *fmt, ...);

static int failures;

#define CHECK(cap, ...)                                                        \
  do {                                                                         \
    char want[256], got[256];                                                  \
    memset(want, 'x', sizeof want);                                            \
    memset(got, 'x', sizeof got);                                              \
    int a = snprintf(want, cap, __VA_ARGS__);                                  \
    int b = sfc_test_snprintf(got, cap, __VA_ARGS__);                          \
    if (a != b || memcmp(want, got, sizeof want) != 0) {                       \
      failures++;                                                              \
      printf("%s:%d: %s: want %d '%.*s', got %d '%.*s'\n", __FILE__, __LINE__, \
             #__VA_ARGS__, a, (int)(cap ? cap : 1) - 1, want, b,               \
             (int)(cap ? cap : 1) - 1, got);                                   \
    }                                                                          \
  } while (0)

int main(void) {
  const long long ll[] = {0,         1,        -1, 42, -42, 123456789012LL,
                          INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < sizeof ll / sizeof *ll; i++) {
    CHECK(256, "%lld|%04lld|%03lld|%06lld|%5lld|%-5lld|%+lld|% lld", ll[i],
          ll[i], ll[i], ll[i], ll[i], ll[i], ll[i], ll[i]);
    CHECK(256, "%llu|%06llu|%016llx|%16llx|%llx|%llX",
          (unsigned long long)ll[i], (unsigned long long)ll[i],
          (unsigned long long)ll[i], (unsigned long long)ll[i],
          (unsigned long long)ll[i], (unsigned long long)ll[i]);
    CHECK(256, "%ld|%lu|%d|%u|%02d|%02u|%03d|%03o|%zu", (long)ll[i],
          (unsigned long)ll[i], (int)ll[i], (unsigned)ll[i], (int)ll[i],
          (unsigned)ll[i], (int)ll[i], (unsigned)ll[i], (size_t)ll[i]);
  }
  const char *s = "abcdefghij";
  CHECK(256, "%s|%.3s|%.*s|%5s|%-5s|%.64s|%c|%%|%.40s", s, s, 4, s, "ab", "ab",
        s, 'z', "");
  CHECK(256, "%c%06lld-%02u-%02uT%02d:%02d:%02d.%03dZ", '+', 2024LL, 1u, 2u, 3,
        4, 5, 6);
  CHECK(256, "%c%06lld-%02u", '-', 12345LL, 12u);
  CHECK(5, "%s and more", "truncated");
  CHECK(1, "%d", 12345);
  CHECK(0, "%d", 12345);
  const double d[] = {0,        -0.0,    0.5,    1.5,    -2.25,
                      1e-5,     1.23e-4, 0.0001, 123456, 1234567,
                      999999.5, 9999995, 1e21,   1e-300, 3.14159265358979,
                      2.5e15,   1e100,   -7.0,   0.1,    100.0,
                      1e6};
  for (size_t i = 0; i < sizeof d / sizeof *d; i++)
    CHECK(256, "the number %g|%8g|%-8g|%+g", d[i], d[i], d[i], d[i]);
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double v;
    uint64_t bits = x & 0x7fefffffffffffffu;
    memcpy(&v, &bits, sizeof v);
    CHECK(256, "%g", v);
    CHECK(256, "%g", (double)(int64_t)(x >> 20) / 1024.0);
    CHECK(256, "%lld %llu %llx", (long long)x, (unsigned long long)x,
          (unsigned long long)x);
  }
  if (failures) printf("%d differences\n", failures);
  return failures ? 1 : 0;
}
