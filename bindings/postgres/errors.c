/* The core's errors as SQL errors: the core's message verbatim, the error
 * kind's name as the detail, and a SQLSTATE per kind. The kinds that are
 * data errors take class 22 (data exception), the generator's states class
 * 55 (object not in prerequisite state), the state directory class 58
 * (system error), each with the implementation-defined subclass S<status>;
 * OutOfMemory is PostgreSQL's own 53200.
 *
 *   InvalidLayout        22S01    ClockMovedBackwards  55S03
 *   InvalidArgument      22S02    GeneratorForked      55S05
 *   TimeExhausted        22S04    WorkerUnavailable    55S06
 *   StateError           58S07    OutOfMemory          53200
 *   LeaseExpired         55S10 */
#include "snowflake_c_pg.h"

#include <stdarg.h>
#include <stdio.h>

static int sqlstate_of(sfc_status status) {
  switch (status) {
  case SFC_INVALID_LAYOUT:
    return MAKE_SQLSTATE('2', '2', 'S', '0', '1');
  case SFC_INVALID_ARGUMENT:
    return MAKE_SQLSTATE('2', '2', 'S', '0', '2');
  case SFC_CLOCK_MOVED_BACKWARDS:
    return MAKE_SQLSTATE('5', '5', 'S', '0', '3');
  case SFC_TIME_EXHAUSTED:
    return MAKE_SQLSTATE('2', '2', 'S', '0', '4');
  case SFC_GENERATOR_FORKED:
    return MAKE_SQLSTATE('5', '5', 'S', '0', '5');
  case SFC_WORKER_UNAVAILABLE:
    return MAKE_SQLSTATE('5', '5', 'S', '0', '6');
  case SFC_STATE_ERROR:
    return MAKE_SQLSTATE('5', '8', 'S', '0', '7');
  case SFC_OUT_OF_MEMORY:
    return ERRCODE_OUT_OF_MEMORY;
  case SFC_LEASE_EXPIRED:
    return MAKE_SQLSTATE('5', '5', 'S', '1', '0');
  default:
    return ERRCODE_INTERNAL_ERROR;
  }
}

void sfc_pg_raise(const sfc_error *err) {
  sfc_pg_raise_hint(err, NULL);
}

void sfc_pg_raise_hint(const sfc_error *err, const char *hint) {
  ereport(ERROR, (errcode(sqlstate_of(err->status)), errmsg("%s", err->message),
                  errdetail("snowflake-c error kind: %s",
                            sfc_status_name(err->status)),
                  hint ? errhint("%s", hint) : 0));
  pg_unreachable();
}

void sfc_pg_raise_status(sfc_status status, const char *fmt, ...) {
  sfc_error err;
  va_list ap;
  err.status = status;
  va_start(ap, fmt);
  vsnprintf(err.message, sizeof err.message, fmt, ap);
  va_end(ap);
  sfc_pg_raise(&err);
}
