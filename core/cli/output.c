/* What the commands print: decoded IDs, and JSON by the one rule of every
 * command. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

char *u64_to_text(uint64_t v, char *end) {
  do {
    *--end = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  return end;
}

void print_parts(const sfc_layout *l, const sfc_parts *p, bool json) {
  if (json) {
    char buf[SFC_JSON_MAX];
    sfc_parts_json(l, p, buf, sizeof buf);
    puts(buf);
    return;
  }
  char iso[SFC_ISO_MAX];
  sfc_format_iso(p->time_ms, iso, sizeof iso);
  printf("%" PRIu64 "  %s", p->id, iso);
  for (unsigned i = 1; i < l->field_count; i++)
    printf("  %s=%" PRIu64, l->fields[i].name, p->values[i]);
  putchar('\n');
}

/* A JSON string. */
void json_text(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(out, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(out, "\\u%04x", ch);
    else
      fputc(ch, out);
  }
  fputc('"', out);
}

/* Is the fact called `name` an ID ("id", "max_id")? The one JSON rule of
 * every command: IDs are decimal strings, as in the canonical JSON (a JSON
 * reader that reads numbers as doubles loses integers above 2^53); every
 * other number is a JSON number. */
bool is_id(const char *name) {
  size_t n = strlen(name);
  return strcmp(name, "id") == 0 || (n > 3 && strcmp(name + n - 3, "_id") == 0);
}

/* One JSON value of a fact; `id`: an ID, a decimal string. */
void json_value(FILE *out, const sfc_value *v, bool id) {
  switch (v->type) {
  case SFC_TYPE_TEXT:
    json_text(out, v->text);
    break;
  case SFC_TYPE_INT:
    fprintf(out, id ? "\"%" PRId64 "\"" : "%" PRId64, v->i);
    break;
  case SFC_TYPE_UINT:
    fprintf(out, id ? "\"%" PRIu64 "\"" : "%" PRIu64, v->u);
    break;
  case SFC_TYPE_DOUBLE:
    fprintf(out, "%.17g", v->d);
    break;
  default:
    fputs("null", out);
  }
}
