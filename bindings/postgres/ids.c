/* IDs between SQL's bigint and the core's uint64_t: a bigint holds the IDs
 * 0 … 2^63 - 1 (every preset's, until at least 2080); the others are
 * refused, never wrapped to a negative number. */
#include "snowflake_c_pg.h"

#include <inttypes.h>

uint64_t sfc_pg_id_arg(int64 id) {
  if (id < 0)
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "%" PRId64 " is not an ID: IDs are 0 or more.", id);
  return (uint64_t)id;
}

int64 sfc_pg_id_result(uint64_t id) {
  if (id > (uint64_t)PG_INT64_MAX)
    sfc_pg_raise_status(
        SFC_INVALID_ARGUMENT,
        "the ID %" PRIu64 " does not fit a bigint (at most "
        "9223372036854775807): use a layout of 63 bits or fewer.",
        id);
  return (int64)id;
}
