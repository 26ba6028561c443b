/* A host for the binding kit's tests: its values are nodes that record
 * what the kit asked it to make (a scalar, a list, a map and its keys, a
 * Symbol key or a data key), rendered as text to compare; `fail_at` makes
 * the n-th make fail, `live` counts the values neither given nor dropped. */
#ifndef SFC_TEST_KIT_HOST_H
#define SFC_TEST_KIT_HOST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snowflake_c_host.h"

typedef struct node {
  sfc_value v; /* NONE, BOOL, INT, UINT, DOUBLE, TEXT, LIST or MAP */
  char text[128];
  struct node *item[64];
  char key[64][32];
  int symbol[64];
  size_t count;
} node;

typedef struct test_host {
  int made, fail_at, live, waits, warns, refuse_warn;
  char told[512];
  const sfc_layout *layout; /* what an object of the host holds */
} test_host;

static node *node_new(test_host *t, sfc_type type) {
  node *n;
  if (++t->made == t->fail_at || !(n = (node *)calloc(1, sizeof *n)))
    return NULL;
  n->v.type = type;
  t->live++;
  return n;
}

static void node_free(node *n) {
  for (size_t i = 0; i < n->count; i++)
    node_free(n->item[i]);
  free(n);
}

static int th_out(void *ctx, const sfc_value *v, sfk_obj *out) {
  node *n = node_new((test_host *)ctx, v->type);
  if (!n) return -1;
  n->v = *v;
  if (v->type == SFC_TYPE_TEXT)
    snprintf(n->text, sizeof n->text, "%.*s", (int)v->len, v->text);
  *out = n;
  return 0;
}

static int th_list(void *ctx, sfk_obj *out) {
  return (*out = node_new((test_host *)ctx, SFC_TYPE_LIST)) ? 0 : -1;
}

static int th_map(void *ctx, sfk_obj *out) {
  return (*out = node_new((test_host *)ctx, SFC_TYPE_MAP)) ? 0 : -1;
}

/* The value becomes the container's: no longer live on its own. */
static int th_add(test_host *t, node *to, const char *key, int symbol,
                  node *v) {
  if (key) snprintf(to->key[to->count], sizeof to->key[0], "%s", key);
  to->symbol[to->count] = symbol;
  to->item[to->count++] = v;
  t->live--;
  return 0;
}

static int th_push(void *ctx, sfk_obj list, sfk_obj v) {
  return th_add((test_host *)ctx, (node *)list, NULL, 0, (node *)v);
}

static int th_put(void *ctx, sfk_obj map, const char *key, int symbol,
                  sfk_obj v) {
  return th_add((test_host *)ctx, (node *)map, key, symbol, (node *)v);
}

static void th_drop(void *ctx, sfk_obj o) {
  ((test_host *)ctx)->live--;
  node_free((node *)o);
}

/* In: a node as it was made (a test builds its arguments with th_out,
 * th_map and th_put); an INT of -999 stands for an object of the host. */
static int th_in(void *ctx, sfk_obj o, sfc_value *out, sfc_error *err) {
  node *n = (node *)o;
  (void)ctx, (void)err;
  *out = n->v;
  if (n->v.type == SFC_TYPE_TEXT) out->text = n->text;
  if (n->v.type == SFC_TYPE_INT && n->v.i == -999) out->type = SFK_TYPE_OBJECT;
  return 0;
}

static const char *th_type_name(void *ctx, sfk_obj o) {
  (void)ctx;
  return ((node *)o)->v.type == SFC_TYPE_MAP ? "Map" : "Thing";
}

static int th_each(void *ctx, sfk_obj map, const char *what, sfk_visit visit,
                   void *visit_ctx, sfc_error *err) {
  node *n = (node *)map;
  (void)ctx;
  if (n->v.type != SFC_TYPE_MAP)
    return sfk_fail(err, SFC_INVALID_ARGUMENT, "%s must be a map", what), 0;
  for (size_t i = 0; i < n->count; i++)
    if (!visit(visit_ctx, n->key[i], strlen(n->key[i]), n->item[i], err))
      return 0;
  return 1;
}

static const sfc_layout *th_layout(void *ctx, sfk_obj o) {
  const node *n = (const node *)o;
  return n && n->v.type == SFC_TYPE_INT && n->v.i == -999
             ? ((test_host *)ctx)->layout
             : NULL;
}

static int th_wait(void *ctx, int64_t wait_us, sfc_error *err) {
  (void)wait_us, (void)err;
  ((test_host *)ctx)->waits++;
  return 0;
}

/* Records "kind: text;"; refuses (raises) when refuse_warn. */
static int th_warn(void *ctx, const char *kind, const char *text,
                   sfc_error *err) {
  test_host *t = (test_host *)ctx;
  size_t len = strlen(t->told);
  t->warns++;
  if (t->refuse_warn)
    return sfk_fail(err, SFC_INVALID_ARGUMENT, "warning made an error"), -1;
  snprintf(t->told + len, sizeof t->told - len, "%s: %.40s;", kind, text);
  return 0;
}

static sfk_host test_host_of(test_host *t) {
  sfk_host h = {t,       th_in,   th_type_name, th_each, th_layout,
                th_out,  th_list, th_map,       th_push, th_put,
                th_drop, th_wait, th_warn,      NULL,    NULL};
  return h;
}

/* The value as text, {:symbol=1,"data"=[2,"x"]}: scalars as JSON has them,
 * an unsigned value quoted as an ID is (1 is an INT, "1" a UINT). */
static void render(const node *n, const sfk_sink *out) {
  int map = n->v.type == SFC_TYPE_MAP;
  if (!map && n->v.type != SFC_TYPE_LIST) {
    sfc_value v = n->v;
    if (v.type == SFC_TYPE_TEXT) v.text = n->text;
    sfk_json_value(out, &v, v.type == SFC_TYPE_UINT);
    return;
  }
  sfk_put(out, map ? "{" : "[");
  for (size_t i = 0; i < n->count; i++) {
    sfk_put(out, i ? "," : "");
    if (map) sfk_printf(out, n->symbol[i] ? ":%s=" : "\"%s\"=", n->key[i]);
    render(n->item[i], out);
  }
  sfk_put(out, map ? "}" : "]");
}

#endif
