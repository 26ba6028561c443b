/* An error of the kit's: the status and its formatted message. */
#include <stdarg.h>

#include "snowflake_c_host.h"

sfc_status sfk_fail(sfc_error *err, sfc_status status, const char *format,
                    ...) {
  va_list ap;
  err->status = status;
  va_start(ap, format);
  vsnprintf(err->message, sizeof err->message, format, ap);
  va_end(ap);
  return status;
}
