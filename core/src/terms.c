/* The core's messages in the caller's terms: an option is `state_dir` in
 * the core's table and its messages, `stateDir` to a Node.js or Java
 * caller, `--state-dir` on the command line. One rewrite that every host
 * applies to the messages it shows, instead of one spelling per host. */
#include "internal.h"

#include <string.h>

static bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* The option whose name starts `text` as a whole word, if it has two words
 * or more: a one-word name (guard, rollback) is also a word of the prose. */
static const sfc_option_info *option_at(const char *text, const char *start) {
  if (text > start && word_char(text[-1])) return NULL;
  const sfc_option_info *o;
  for (size_t i = 0; (o = sfc_option_at(i)); i++) {
    size_t n = strlen(o->name);
    if (strchr(o->name, '_') && strncmp(text, o->name, n) == 0 &&
        !word_char(text[n]))
      return o;
  }
  return NULL;
}

/* Appends `c` at out[*len] while there is room; counts it regardless. */
static void put(char *out, size_t cap, size_t *len, char c) {
  if (*len + 1 < cap) out[*len] = c;
  (*len)++;
}

size_t sfc_text_in_terms(const char *text, sfc_terms terms, char *out,
                         size_t cap) {
  size_t len = 0;
  for (const char *p = text; *p;) {
    const sfc_option_info *o =
        terms == SFC_TERMS_SNAKE ? NULL : option_at(p, text);
    if (!o) {
      put(out, cap, &len, *p++);
      continue;
    }
    if (terms == SFC_TERMS_FLAG)
      put(out, cap, &len, '-'), put(out, cap, &len, '-');
    for (const char *n = o->name; *n; n++) {
      if (*n != '_')
        put(out, cap, &len, *n);
      else if (terms == SFC_TERMS_FLAG)
        put(out, cap, &len, '-');
      else if (n[1]) /* camelCase: the next letter in upper case */
        put(out, cap, &len, (char)(*++n - 'a' + 'A'));
    }
    p += strlen(o->name);
  }
  if (cap) out[len < cap ? len : cap - 1] = '\0';
  return len;
}
