/* The words every table and binding shares: type names, the casings of a
 * name, and text that C may hold. */
#include "internal.h"

#include <ctype.h>
#include <string.h>

const char *sfc_type_name(sfc_type type) {
  static const char *const names[] = {"none",   "bool", "int",      "uint",
                                      "double", "text", "duration", "choice",
                                      "path",   "list", "map"};
  return (unsigned)type < sizeof names / sizeof names[0] ? names[type]
                                                         : "unknown";
}

/* Any casing of the same words: "max_wait", "maxWait", "MaxWait",
 * "max-wait". */
bool sfc_same_words(const char *given, size_t len, const char *canonical) {
  size_t i = 0;
  for (; *canonical; canonical++) {
    if (*canonical == '_') {
      if (i < len && (given[i] == '_' || given[i] == '-')) i++;
      continue;
    }
    if (i >= len || tolower((unsigned char)given[i]) != *canonical)
      return false;
    i++;
  }
  return i == len;
}

sfc_status sfc_text_check(const char *what, const char *text, size_t len,
                          sfc_error *err) {
  const char *nul = text && len ? memchr(text, '\0', len) : NULL;
  if (nul)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s has a NUL byte at position %zu (counting from 0), "
                    "where C text would end and the rest be lost: remove it",
                    what ? what : "text", (size_t)(nul - text));
  return SFC_OK;
}

/* `words` ("max_wait") as the caller writes names, judged by `given`:
 * "maxWait" after a camelCase name, "max-wait" after a dashed one, else as
 * it is. */
void sfc_in_casing_of(const char *given, size_t len, const char *words,
                      char *out, size_t cap) {
  bool camel = false, dashed = false;
  for (size_t i = 0; given && i < len; i++) {
    camel |= given[i] >= 'A' && given[i] <= 'Z';
    dashed |= given[i] == '-';
  }
  size_t n = 0;
  for (const char *p = words; *p && n + 1 < cap; p++) {
    if (*p == '_' && camel && p[1])
      out[n++] = (char)toupper((unsigned char)*++p);
    else
      out[n++] = *p == '_' && dashed ? '-' : *p;
  }
  out[n] = '\0';
}
