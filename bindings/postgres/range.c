/* range: the smallest and largest IDs of a time window [t0, t1), as in
 * every language, so that WHERE id BETWEEN lo AND hi scans a primary key
 * and adjacent windows never share an ID. */
#include "snowflake_c_pg.h"

#include "access/htup_details.h"
#include "datatype/timestamp.h"
#include "funcapi.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(sfc_pg_range);

/* Unix ms of a timestamptz, rounded down as in every language. */
static int64_t unix_ms_of(TimestampTz t, const char *what) {
  int64_t unix_us;
  if (TIMESTAMP_NOT_FINITE(t))
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "range: %s must be a finite time.", what);
  unix_us =
      t + (int64_t)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
  return unix_us >= 0 ? unix_us / 1000 : -((999 - unix_us) / 1000);
}

Datum sfc_pg_range(PG_FUNCTION_ARGS) {
  const sfc_layout *layout;
  uint64_t min_id, max_id;
  sfc_error err;
  TupleDesc desc;
  Datum values[2];
  bool nulls[2] = {false, false};
  int64_t t0, t1;

  if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) PG_RETURN_NULL();
  t0 = unix_ms_of(PG_GETARG_TIMESTAMPTZ(0), "t0");
  t1 = unix_ms_of(PG_GETARG_TIMESTAMPTZ(1), "t1");
  layout = sfc_pg_layout_arg(fcinfo, 2);
  if (sfc_range(layout, t0, t1, &min_id, &max_id, &err) != SFC_OK)
    sfc_pg_raise(&err);
  if (max_id > (uint64_t)PG_INT64_MAX)
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "range: the window ends at the ID %llu, which does "
                        "not fit a bigint: end the window earlier.",
                        (unsigned long long)max_id);
  if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
    elog(ERROR, "range must be declared with OUT lo, OUT hi");
  values[0] = Int64GetDatum(sfc_pg_id_result(min_id));
  values[1] = Int64GetDatum((int64)max_id);
  PG_RETURN_DATUM(
      HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
