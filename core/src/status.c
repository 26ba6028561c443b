/* Status names and messages; error filling. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const names[SFC_STATUS_COUNT] = {
    "Ok",
    "InvalidLayout",
    "InvalidArgument",
    "ClockMovedBackwards",
    "TimeExhausted",
    "GeneratorForked",
    "WorkerUnavailable",
    "StateError",
    "Wait",
};

static const char *const messages[SFC_STATUS_COUNT] = {
    "success",
    "the layout is invalid",
    "an argument is invalid",
    "the clock moved backwards",
    "the layout's time field has run out",
    "the generator was used in a forked child",
    "no node value is available",
    "the state directory could not be used",
    "not yet: wait and call again",
};

const char *sfc_status_name(sfc_status status) {
  if ((unsigned)status >= SFC_STATUS_COUNT) return "Unknown";
  return names[status];
}

const char *sfc_status_message(sfc_status status) {
  if ((unsigned)status >= SFC_STATUS_COUNT) return "unknown status";
  return messages[status];
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

unsigned sfc_version_number(void) {
  return SFC_VERSION_NUMBER;
}

const char *sfc_version_string(void) {
  return SFC_VERSION_STRING;
}
