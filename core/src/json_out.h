/* Shared by the files that write the core's canonical JSON by hand
 * (decode.c, uuid.c), beside internal.h. */
#ifndef SFC_JSON_OUT_H
#define SFC_JSON_OUT_H

#include <string.h>

#include "internal.h"

/* The pieces of a JSON text written by hand (a decoder writes one per ID):
 * text at *p, an ID's decimal digits at *p, and (encoding.c) the whole text
 * copied out as snprintf would (what fits, always ended; its length). */
static inline void sfc_put_text(char **p, const char *s, size_t n) {
  memcpy(*p, s, n);
  *p += n;
}
static inline void sfc_put_dec(char **p, uint64_t v) {
  *p += sfc_id_format(v, SFC_ENCODING_DEC, SFC_FORMAT_SHORTEST, *p,
                      SFC_ENCODED_MAX);
}
SFC_INTERNAL size_t sfc_copy_out(const char *text, size_t n, char *buf,
                                 size_t cap);

#endif
