/* The warnings already told, each once per process: a service that makes
 * a generator per request is told once, not per request. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "snowflake_c_host.h"

typedef struct told {
  struct told *next;
  char text[];
} told;

static told *told_list;
/* Held for a walk of a few short texts: a spin lock, on C11 alone. */
static atomic_flag told_lock = ATOMIC_FLAG_INIT;

static void lock(void) {
  while (atomic_flag_test_and_set_explicit(&told_lock, memory_order_acquire))
    ;
}

static void unlock(void) {
  atomic_flag_clear_explicit(&told_lock, memory_order_release);
}

int sfk_told_mark(const char *text) {
  told *t;
  size_t len = strlen(text);
  lock();
  for (t = told_list; t; t = t->next)
    if (strcmp(t->text, text) == 0) break;
  if (!t && (t = (told *)malloc(sizeof *t + len + 1)) != NULL) {
    memcpy(t->text, text, len + 1);
    t->next = told_list;
    told_list = t;
    t = NULL;
  }
  unlock();
  return t == NULL;
}

void sfk_told_forget(const char *text) {
  told **p, *t;
  lock();
  for (p = &told_list; (t = *p) != NULL; p = &t->next)
    if (strcmp(t->text, text) == 0) {
      *p = t->next;
      free(t);
      break;
    }
  unlock();
}

/* The decision to warn is the core's; this only hands the texts up. */
int sfk_tell(const sfk_host *h, const sfc_generator *gen, sfc_error *err) {
  const char *kind, *text;
  for (size_t i = 0; (kind = sfc_generator_warning_at(gen, i, &text)); i++) {
    if (!sfk_told_mark(text)) continue;
    if (h->warn(h->ctx, kind, text, err) == 0) continue;
    sfk_told_forget(text);
    return -1;
  }
  return 0;
}
