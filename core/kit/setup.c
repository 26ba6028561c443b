/* A generator's arguments read from host values, each handed to the core's
 * own setter: options by name, node values, the preset/layout/epoch trio
 * or a Layout object. */
#include <string.h>

#include "snowflake_c_host.h"

void sfk_setup_init(sfk_setup *s) {
  memset(s, 0, sizeof *s);
  sfc_options_init(&s->opts);
}

void sfk_setup_free(sfk_setup *s) {
  sfk_named_free(&s->node);
}

typedef struct setup_walk {
  const sfk_host *h;
  sfk_setup *s;
} setup_walk;

/* A value the core cannot take (an object of the language). */
static int foreign(const sfk_host *h, const char *what, sfk_obj o,
                   sfc_error *err) {
  sfk_fail(err, SFC_INVALID_ARGUMENT, "%s cannot be a %s", what,
           h->type_name(h->ctx, o));
  return 0;
}

/* One of the trio, as text for sfc_layout_resolve (a number in decimal). */
static int trio(const setup_walk *w, const char **slot, const char *key,
                sfk_obj o, sfc_error *err) {
  sfc_value v;
  char digits[32];
  const char *text = digits;
  size_t len;
  if (w->h->in(w->h->ctx, o, &v, err) != 0) return 0;
  if (v.type == SFC_TYPE_NONE) return 1;
  if (*slot) {
    sfk_fail(err, SFC_INVALID_ARGUMENT, "%s is given twice", key);
    return 0;
  }
  if (v.type == SFC_TYPE_TEXT) {
    if (sfc_text_check(key, v.text, v.len, err) != SFC_OK) return 0;
    text = v.text;
    len = v.len;
  } else if (v.type == SFC_TYPE_INT) {
    len = (size_t)snprintf(digits, sizeof digits, "%lld", (long long)v.i);
  } else if (v.type == SFC_TYPE_UINT) {
    len = (size_t)snprintf(digits, sizeof digits, "%llu",
                           (unsigned long long)v.u);
  } else {
    sfk_fail(err, SFC_INVALID_ARGUMENT, "%s must be text, not a %s", key,
             w->h->type_name(w->h->ctx, o));
    return 0;
  }
  return (*slot = sfk_keep(&w->s->node, text, len, err)) != NULL;
}

/* A Layout object, which sfc_layout_resolve takes beside the trio (and
 * refuses with any of it). */
static int layout_object(sfk_setup *s, const sfc_layout *l, sfc_error *err) {
  if (s->has_held) {
    sfk_fail(err, SFC_INVALID_ARGUMENT, "layout is given twice");
    return 0;
  }
  s->held = *l;
  s->has_held = 1;
  return 1;
}

/* One node value: for the field `key`, or (key NULL) the only one. */
static int node_visit(void *ctx, const char *key, size_t len, sfk_obj o,
                      sfc_error *err) {
  const setup_walk *w = (const setup_walk *)ctx;
  sfk_setup *s = w->s;
  sfc_node_value nv;
  sfc_value v;
  const char *name = NULL;
  if (key && !(name = sfk_keep(&s->node, key, len, err))) return 0;
  if (w->h->in(w->h->ctx, o, &v, err) != 0) return 0;
  if (v.type == SFK_TYPE_OBJECT)
    return foreign(w->h, name ? name : "a node value", o, err);
  if (sfc_node_value_set(&nv, name, &v, err) != SFC_OK) return 0;
  if (!sfk_named_add(&s->node, &nv, err)) return 0;
  sfc_options_set_nodes(&s->opts, s->node.value, s->node.count);
  return 1;
}

static int is(const char *key, size_t len, const char *word) {
  return len == strlen(word) && memcmp(key, word, len) == 0;
}

/* One pair of the options: `node`, one of the trio, or an option of the
 * core's table, set by its name as the user wrote it. */
static int setup_visit(void *ctx, const char *key, size_t len, sfk_obj o,
                       sfc_error *err) {
  const setup_walk *w = (const setup_walk *)ctx;
  const sfk_host *h = w->h;
  const sfc_layout *l;
  sfc_value v;
  if (is(key, len, "preset")) return trio(w, &w->s->preset, "preset", o, err);
  if (is(key, len, "epoch")) return trio(w, &w->s->epoch, "epoch", o, err);
  if (is(key, len, "layout")) {
    if ((l = h->layout(h->ctx, o)) != NULL) return layout_object(w->s, l, err);
    return trio(w, &w->s->spec, "layout", o, err);
  }
  if (is(key, len, "node")) {
    if (h->in(h->ctx, o, &v, err) != 0) return 0;
    if (v.type == SFC_TYPE_NONE) return 1;
    if (v.type == SFC_TYPE_MAP)
      return h->each(h->ctx, o, "node", node_visit, ctx, err);
    return node_visit(ctx, NULL, 0, o, err);
  }
  /* A typo is named as the core names it, whatever its value's type. */
  if (!sfc_option_find(key, len)) {
    v.type = SFC_TYPE_NONE;
    return sfc_options_set(&w->s->opts, key, len, &v, err) == SFC_OK;
  }
  if (h->in(h->ctx, o, &v, err) != 0) return 0;
  if (v.type == SFK_TYPE_OBJECT) {
    char what[64];
    snprintf(what, sizeof what, "%.*s", (int)(len > 40 ? 40 : len), key);
    return foreign(h, what, o, err);
  }
  /* A path is kept by the core until the generator is made: a copy. */
  if (v.type == SFC_TYPE_TEXT &&
      !(v.text = sfk_keep(&w->s->node, v.text, v.len, err)))
    return 0;
  return sfc_options_set(&w->s->opts, key, len, &v, err) == SFC_OK;
}

int sfk_setup_read(const sfk_host *h, sfk_setup *s, const sfk_obj *first,
                   const sfk_obj *opts, sfc_error *err) {
  setup_walk w = {h, s};
  sfc_value v = {SFC_TYPE_NONE, 0, 0, 0, NULL, 0, 0};
  const sfc_layout *l;
  if (first && h->in(h->ctx, *first, &v, err) != 0) return 0;
  if (v.type == SFC_TYPE_MAP && !opts) {
    opts = first;
  } else if (v.type == SFC_TYPE_TEXT) {
    if (!trio(&w, &s->preset, "preset", *first, err)) return 0;
  } else if (v.type != SFC_TYPE_NONE) {
    if (!(l = h->layout(h->ctx, *first)))
      return foreign(h,
                     "the first argument (a Layout, a preset name or the "
                     "options)",
                     *first, err);
    if (!layout_object(s, l, err)) return 0;
  }
  if (opts) {
    if (h->in(h->ctx, *opts, &v, err) != 0) return 0;
    if (v.type != SFC_TYPE_NONE &&
        !h->each(h->ctx, *opts, "generator options", setup_visit, &w, err))
      return 0;
  }
  return 1;
}

sfc_status sfk_generator_new(const sfk_host *h, const sfk_obj *first,
                             const sfk_obj *opts, sfc_generator **out,
                             sfc_error *err) {
  sfk_setup s;
  sfc_layout layout;
  sfc_generator *gen = NULL;
  sfk_setup_init(&s);
  if (sfk_setup_read(h, &s, first, opts, err) &&
      sfc_layout_resolve(s.has_held ? &s.held : NULL, s.preset, s.spec, s.epoch,
                         &layout, err) == SFC_OK &&
      sfc_generator_new(&layout, &s.opts, &gen, err) == SFC_OK &&
      sfk_tell(h, gen, err) != 0) {
    sfc_generator_free(gen); /* the host raised: no generator */
    gen = NULL;
  }
  sfk_setup_free(&s);
  *out = gen;
  return gen ? SFC_OK : err->status;
}
