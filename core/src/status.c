/* Status names and messages; error filling. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

/* Here, at the bottom, so that any file may call it (tests only). */
void (*sfc_test_hook)(const char *point);

static const sfc_status_info statuses[SFC_STATUS_COUNT] = {
    {SFC_OK, "Ok", "success", 0},
    {SFC_INVALID_LAYOUT, "InvalidLayout", "the layout is invalid", 1},
    {SFC_INVALID_ARGUMENT, "InvalidArgument", "an argument is invalid", 1},
    {SFC_CLOCK_MOVED_BACKWARDS, "ClockMovedBackwards",
     "the clock moved backwards", 1},
    {SFC_TIME_EXHAUSTED, "TimeExhausted", "the layout's time field has run out",
     1},
    {SFC_GENERATOR_FORKED, "GeneratorForked",
     "the generator was used in a forked child", 1},
    {SFC_WORKER_UNAVAILABLE, "WorkerUnavailable", "no node value is available",
     1},
    {SFC_STATE_ERROR, "StateError", "the state directory could not be used", 1},
    {SFC_WAIT, "Wait", "not yet: wait and call again", 0},
    {SFC_OUT_OF_MEMORY, "OutOfMemory", "out of memory", 1},
    {SFC_LEASE_EXPIRED, "LeaseExpired",
     "the node value's lease may have expired: no ID until a renewal "
     "succeeds, which resumes generation by itself",
     1},
};

const sfc_status_info *sfc_status_at(size_t i) {
  return i < SFC_STATUS_COUNT ? &statuses[i] : NULL;
}

const char *sfc_status_name(sfc_status status) {
  if ((unsigned)status >= SFC_STATUS_COUNT) return "Unknown";
  return statuses[status].name;
}

const char *sfc_status_message(sfc_status status) {
  if ((unsigned)status >= SFC_STATUS_COUNT) return "unknown status";
  return statuses[status].message;
}

sfc_status sfc_fail(sfc_error *err, sfc_status status, const char *fmt, ...) {
  if (err) {
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return status;
}

sfc_status sfc_fail_closed(const sfc_generator *g, sfc_error *err) {
  if (g && g->taken_over[0])
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "the generator is closed: a newer generator of this "
                    "process took node value %s (a cell or a reload run "
                    "again); use that one",
                    g->taken_over);
  return sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "the generator is closed: create a new one");
}

unsigned sfc_version_number(void) {
  return SFC_VERSION_NUMBER;
}

const char *sfc_version_string(void) {
  return SFC_VERSION_STRING;
}
