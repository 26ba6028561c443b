/* What the commands print: decoded IDs, as text or as the kit's canonical
 * JSON. */
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
    sfk_sink out = sfk_file_sink(stdout);
    sfk_json_parts(&out, l, p);
    putchar('\n');
    return;
  }
  char iso[SFC_ISO_MAX];
  sfc_format_iso(p->time_ms, iso, sizeof iso);
  printf("%" PRIu64 "  %s", p->id, iso);
  for (unsigned i = 1; i < l->field_count; i++)
    printf("  %s=%" PRIu64, l->fields[i].name, p->values[i]);
  putchar('\n');
}
