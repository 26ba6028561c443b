/* Values by name read from a host map (node values, field values), with
 * every text copied out of the host's heap. */
#include <stdlib.h>
#include <string.h>

#include "snowflake_c_host.h"

void sfk_named_free(sfk_named *n) {
  for (size_t i = 0; i < n->kept_count; i++)
    free(n->kept[i]);
  free(n->kept);
  free(n->value);
  memset(n, 0, sizeof *n);
}

const char *sfk_keep(sfk_named *n, const char *text, size_t len,
                     sfc_error *err) {
  char *copy;
  if (n->kept_count == n->kept_cap) {
    size_t cap = n->kept_cap ? 2 * n->kept_cap : 8;
    char **more = (char **)realloc(n->kept, cap * sizeof *more);
    if (!more) goto oom;
    n->kept = more;
    n->kept_cap = cap;
  }
  if (!(copy = (char *)malloc(len + 1))) goto oom;
  memcpy(copy, text, len);
  copy[len] = '\0';
  n->kept[n->kept_count++] = copy;
  return copy;
oom:
  sfk_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
  return NULL;
}

/* Appends `v`; 0 out of memory. */
int sfk_named_add(sfk_named *n, const sfc_node_value *v, sfc_error *err) {
  if (n->count == n->cap) {
    size_t cap = n->cap ? 2 * n->cap : 4;
    sfc_node_value *more =
        (sfc_node_value *)realloc(n->value, cap * sizeof *more);
    if (!more) {
      sfk_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
      return 0;
    }
    n->value = more;
    n->cap = cap;
  }
  n->value[n->count++] = *v;
  return 1;
}

typedef struct field_walk {
  const sfk_host *h;
  sfk_named *n;
} field_walk;

/* A field value for sfc_encode_named: an integer, or decimal text. */
static int field_visit(void *ctx, const char *key, size_t len, sfk_obj o,
                       sfc_error *err) {
  const field_walk *w = (const field_walk *)ctx;
  sfc_node_value f = {NULL, 0, SFC_SOURCE_EXPLICIT};
  sfc_value v;
  uint64_t u = 0;
  if (!(f.name = sfk_keep(w->n, key, len, err))) return 0;
  if (w->h->in(w->h->ctx, o, &v, err) != 0) return 0;
  if (v.type == SFC_TYPE_INT) {
    f.value = v.i; /* a negative value is named by the core */
    return sfk_named_add(w->n, &f, err);
  }
  if (v.type == SFC_TYPE_UINT)
    u = v.u;
  else if (v.type != SFC_TYPE_TEXT) {
    sfk_fail(err, SFC_INVALID_ARGUMENT,
             "the value of field '%s' must be an integer, not a %s", f.name,
             w->h->type_name(w->h->ctx, o));
    return 0;
  } else if (sfc_id_parse(v.text, v.len, SFC_ENCODING_DEC, &u, err) != SFC_OK)
    return 0;
  if (u > (uint64_t)INT64_MAX) {
    sfk_fail(err, SFC_INVALID_ARGUMENT,
             "the value of field '%s' is above 2^63 - 1; use Parts and "
             "encode for 64-bit fields",
             f.name);
    return 0;
  }
  f.value = (int64_t)u;
  return sfk_named_add(w->n, &f, err);
}

int sfk_fields_read(const sfk_host *h, sfk_obj map, sfk_named *fields,
                    sfc_error *err) {
  field_walk w = {h, fields};
  return h->each(h->ctx, map, "field values", field_visit, &w, err);
}
