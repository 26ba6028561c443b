/* range: the smallest and largest ID of a time interval [T0, T1). */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>

int cmd_range(cli *c, int argc, char **argv) {
  if (argc != 2)
    return usage_error(find_command("range"), "range takes two times: T0 T1");
  sfc_error err;
  int64_t t0, t1;
  uint64_t lo, hi;
  if (parse_time(argv[0], &t0, &err) || parse_time(argv[1], &t1, &err))
    return fail(&err);
  if (sfc_range(&c->layout, t0, t1, &lo, &hi, &err) != SFC_OK)
    return fail(&err);
  if (c->json)
    printf("{\"min\":\"%" PRIu64 "\",\"max\":\"%" PRIu64 "\"}\n", lo, hi);
  else
    printf("%" PRIu64 " %" PRIu64 "\n", lo, hi);
  return 0;
}
