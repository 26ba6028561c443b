/* encode: the ID of a time and a value for every other field. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int cmd_encode(cli *c, int argc, char **argv) {
  const command *cmd = find_command("encode");
  sfc_error err;
  if (!c->time) return usage_error(cmd, "encode needs --time (Unix ms or ISO)");
  int64_t ms;
  if (parse_time(c->time, &ms, &err)) return fail(&err);
  sfc_node_value fields[SFC_MAX_FIELDS];
  size_t count = 0;
  for (int i = 0; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) return usage_error(cmd, "encode takes fields as NAME=VALUE");
    if (count == SFC_MAX_FIELDS) return usage_error(cmd, "too many fields");
    *eq = '\0';
    size_t n = strlen(eq + 1);
    uint64_t v;
    if (sfc_id_parse(eq + 1, n, SFC_ENCODING_DEC, &v, &err) != SFC_OK ||
        v > INT64_MAX) {
      fprintf(stderr,
              PROG ": InvalidArgument: field '%s' has value '%s': give a "
                   "whole number from 0\n",
              argv[i], eq + 1);
      return 1;
    }
    fields[count].name = argv[i];
    fields[count].value = (int64_t)v;
    count++;
  }
  uint64_t id;
  if (sfc_encode_named(&c->layout, ms * 1000, fields, count, &id, &err) !=
      SFC_OK)
    return fail(&err);
  if (c->json) {
    sfc_parts p;
    sfc_decode(&c->layout, id, &p, NULL);
    print_parts(&c->layout, &p, true);
  } else {
    printf("%" PRIu64 "\n", id);
  }
  return 0;
}
