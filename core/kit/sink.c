/* The kit's sinks: a stdio stream, and text that grows; text into any. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "snowflake_c_kit.h"

void sfk_put(const sfk_sink *out, const char *text) {
  out->write(out->ctx, text, strlen(text));
}

void sfk_printf(const sfk_sink *out, const char *format, ...) {
  char line[512];
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  if (n > 0)
    out->write(out->ctx, line,
               (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static void file_write(void *ctx, const char *bytes, size_t n) {
  fwrite(bytes, 1, n, (FILE *)ctx);
}

sfk_sink sfk_file_sink(FILE *out) {
  sfk_sink sink = {file_write, out};
  return sink;
}

static void buffer_write(void *ctx, const char *bytes, size_t n) {
  sfk_buffer *b = ctx;
  if (b->failed) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *data = realloc(b->data, cap);
    if (!data) {
      b->failed = true;
      return;
    }
    b->data = data;
    b->cap = cap;
  }
  memcpy(b->data + b->len, bytes, n);
  b->len += n;
  b->data[b->len] = '\0';
}

sfk_sink sfk_buffer_sink(sfk_buffer *buf) {
  sfk_sink sink = {buffer_write, buf};
  return sink;
}

void sfk_buffer_free(sfk_buffer *buf) {
  free(buf->data);
  buf->data = NULL;
  buf->len = buf->cap = 0;
  buf->failed = false;
}
