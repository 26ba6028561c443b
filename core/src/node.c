/* Node identity: explicit values, environment, host-name ordinal, pool.
 * There is no silent default: two generators sharing a node value is the
 * first cause of duplicate IDs in the wild. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sfc_node_source_name(sfc_node_source source) {
  static const char *const names[] = {"explicit", "env", "host", "pool",
                                      "lease"};
  return (unsigned)source < 5 ? names[source] : "unknown";
}

/* A decimal node value: digits only, at most 18 of them. */
static bool parse_digits_n(const char *p, size_t len, int64_t *value) {
  if (!p || len == 0 || len > 18) return false;
  int64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
    v = v * 10 + (p[i] - '0');
  }
  *value = v;
  return true;
}

static bool parse_digits(const char *p, int64_t *value) {
  return p && parse_digits_n(p, strlen(p), value);
}

/* "env:JOB_COMPLETION_INDEX": a value Kubernetes puts in the environment
 * (an Indexed Job's completion index, or the pod-index label exposed
 * through the Downward API), read when the value is parsed. */
static sfc_status from_env(const char *name, int64_t *value, sfc_error *err) {
  const char *text = *name ? getenv(name) : NULL;
  if (!*name)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "node value 'env:' names no environment variable "
                    "(env:JOB_COMPLETION_INDEX, env:POD_INDEX)");
  if (!text)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "node value env:%.64s: %.64s is not set (Kubernetes sets "
                    "JOB_COMPLETION_INDEX in an Indexed Job; expose a pod's "
                    "apps.kubernetes.io/pod-index label through the Downward "
                    "API)",
                    name, name);
  if (!parse_digits(text, value))
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "node value env:%.64s: %.64s='%.32s' is not a number", name,
                    name, text);
  return SFC_OK;
}

/* A negative value, as text or as a number: one message, naming the field
 * when the caller did (its width is not known yet: the layout comes later). */
static sfc_status negative(sfc_error *err, const char *name, int n,
                           const char *text) {
  return sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "node value %s%s%.*s is negative: give 0 to the field's "
                  "maximum, \"auto\", \"host\" or \"env:NAME\"",
                  name ? name : "", name ? "=" : "", n, text);
}

/* Text of a node value: "3", "auto", "host" or "env:NAME". */
static sfc_status parse_text(const char *shown, const char *text, size_t len,
                             sfc_node_value *out, sfc_error *err) {
  if (len > 4 && memcmp(text, "env:", 4) == 0) {
    char name[128];
    if (len - 4 >= sizeof name)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "node value env:NAME: the name is too long");
    memcpy(name, text + 4, len - 4);
    name[len - 4] = '\0';
    out->source = SFC_SOURCE_ENV;
    return from_env(name, &out->value, err);
  }
  if (len == 4 && memcmp(text, "env:", 4) == 0) return from_env("", NULL, err);
  out->value = 0;
  if (len == 4 && memcmp(text, "auto", 4) == 0) {
    out->source = SFC_SOURCE_POOL;
    return SFC_OK;
  }
  if (len == 5 && memcmp(text, "lease", 5) == 0) {
    out->source = SFC_SOURCE_LEASE;
    return SFC_OK;
  }
  if (len == 4 && memcmp(text, "host", 4) == 0) {
    out->source = SFC_SOURCE_HOST;
    return SFC_OK;
  }
  out->source = SFC_SOURCE_EXPLICIT;
  int64_t magnitude;
  if (len > 1 && (text[0] == '-' || text[0] == '+') &&
      parse_digits_n(text + 1, len - 1, &magnitude)) {
    if (text[0] == '-' && magnitude > 0)
      return negative(err, shown, (int)len, text);
    /* "-0" or "+3": not negative, but a node value is digits alone, as
     * everywhere a non-negative number is text. */
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "node value %s%s%.*s has a sign: give the digits alone "
                    "(0 to the field's maximum), \"auto\", \"host\" or "
                    "\"env:NAME\"",
                    shown ? shown : "", shown ? "=" : "", (int)len, text);
  }
  if (!parse_digits_n(text, len, &out->value))
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "node value '%.*s' is not a number, 'auto', 'host' or "
                    "'env:NAME'",
                    (int)(len > 40 ? 40 : len), text);
  return SFC_OK;
}

sfc_status sfc_node_value_set(sfc_node_value *out, const char *name,
                              const sfc_value *value, sfc_error *err) {
  sfc_node_value v = {name, 0, SFC_SOURCE_EXPLICIT};
  const char *shown = name ? name : "node";
  sfc_status st = SFC_OK;
  switch (value ? value->type : SFC_TYPE_NONE) {
  case SFC_TYPE_INT:
    if (value->i < 0) {
      char text[24];
      int n = snprintf(text, sizeof text, "%lld", (long long)value->i);
      return negative(err, name, n, text);
    }
    v.value = value->i;
    break;
  case SFC_TYPE_UINT:
    if (value->u > (uint64_t)INT64_MAX)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "node value %s=%llu is too large", shown,
                      (unsigned long long)value->u);
    v.value = (int64_t)value->u;
    break;
  case SFC_TYPE_TEXT:
    if (!value->text)
      return sfc_fail(err, SFC_INVALID_ARGUMENT, "node value %s: no text",
                      shown);
    if ((st = sfc_text_check(shown, value->text, value->len, err)) != SFC_OK)
      return st;
    if ((st = parse_text(name, value->text, value->len, &v, err)) != SFC_OK)
      return st;
    break;
  default:
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "node value for %s must be a number, \"auto\", \"host\" "
                    "or \"env:NAME\", not a %s",
                    shown, sfc_type_name(value ? value->type : SFC_TYPE_NONE));
  }
  *out = v;
  return SFC_OK;
}

/* "orders-7" → 7: the StatefulSet ordinal. */
static sfc_status host_ordinal(const char *field, int64_t *value,
                               sfc_error *err) {
  char host[256] = "";
  if (!sfc_os_hostname(host, sizeof host))
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s=host: the host name cannot be read", field);
  const char *dash = strrchr(host, '-');
  const char *p = dash ? dash + 1 : NULL;
  bool ok = p && *p && strlen(p) <= 9;
  for (const char *q = p; ok && *q; q++)
    ok = isdigit((unsigned char)*q);
  if (!ok)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s=host: host name '%s' does not end in -<ordinal> (as "
                    "a StatefulSet pod's 'orders-7' does); give %s explicitly",
                    field, host, field);
  *value = strtoll(p, NULL, 10);
  return SFC_OK;
}

static void env_name(const char *field, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "SNOWFLAKE_%s", field);
  for (size_t i = 10; i < n && i < cap; i++)
    buf[i] = (char)toupper((unsigned char)buf[i]);
}

static sfc_status missing(const sfc_layout *layout, const char *field,
                          sfc_error *err) {
  (void)layout;
  char env[SFC_NAME_MAX + 16];
  env_name(field, env, sizeof env);
  return sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "no value for node field '%s': give %s=N, set %s, use "
                  "%s=host on a StatefulSet, or %s=auto with a state_dir — "
                  "there is no default, because two generators sharing a "
                  "value issue duplicate IDs",
                  field, field, env, field, field);
}

/* The layout field of node value k: by name, or the only node field for a
 * value without one. -1 after filling err. */
static int node_field_of(const sfc_layout *layout, const char *name,
                         sfc_error *err) {
  if (!name) {
    int index = -1, nodes = 0;
    for (unsigned i = 0; i < layout->field_count; i++)
      if (layout->fields[i].kind == SFC_FIELD_NODE) {
        nodes++;
        index = (int)i;
      }
    if (nodes == 1) return index;
    sfc_fail(err, SFC_INVALID_ARGUMENT,
             "a single node value needs a layout with exactly one node "
             "field, and this one has %d: give the values by field name",
             nodes);
    return -1;
  }
  int idx = sfc_layout_field_index(layout, name);
  if (idx < 0 || layout->fields[idx].kind != SFC_FIELD_NODE) {
    char spec[SFC_SPEC_MAX];
    sfc_layout_spec(layout, spec, sizeof spec);
    sfc_fail(err, SFC_INVALID_ARGUMENT, "'%s' is not a node field of layout %s",
             name, spec);
    return -1;
  }
  return idx;
}

/* The value of node field f from SNOWFLAKE_<FIELD>. */
static sfc_status node_from_env(const sfc_layout *layout, const sfc_field *f,
                                sfc_node_value *v, sfc_error *err) {
  char env[SFC_NAME_MAX + 16];
  env_name(f->name, env, sizeof env);
  const char *text = getenv(env);
  if (!text || !*text) return missing(layout, f->name, err);
  sfc_error e;
  if (parse_text(f->name, text, strlen(text), v, &e) != SFC_OK)
    return strncmp(text, "env:", 4) == 0 || text[0] == '-'
               ? sfc_fail(err, SFC_INVALID_ARGUMENT, "%s: %s", env, e.message)
               : sfc_fail(err, SFC_INVALID_ARGUMENT,
                          "%s='%s' is not a number, 'auto', 'host' or "
                          "'env:NAME'",
                          env, text);
  if (v->source == SFC_SOURCE_EXPLICIT) v->source = SFC_SOURCE_ENV;
  return SFC_OK;
}

sfc_status sfc_node_resolve(const sfc_layout *layout, const sfc_options *opts,
                            sfc_node *out, sfc_error *err) {
  const sfc_opts o = sfc_opts_of(opts);
  sfc_node n;
  memset(&n, 0, sizeof n);
  n.auto_slot = -1;
  n.lease_slot = -1;
  int given[SFC_MAX_FIELDS]; /* layout field -> index in o.node, or -1 */
  for (unsigned i = 0; i < SFC_MAX_FIELDS; i++)
    given[i] = -1;
  for (size_t k = 0; k < o.node_count; k++) {
    int idx = node_field_of(layout, o.node[k].name, err);
    if (idx < 0) return SFC_INVALID_ARGUMENT;
    if (given[idx] >= 0)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "node field '%s' is given twice",
                      layout->fields[idx].name);
    if ((unsigned)o.node[k].source > SFC_SOURCE_LEASE)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "node field '%s': unknown source %d",
                      layout->fields[idx].name, (int)o.node[k].source);
    given[idx] = (int)k;
  }
  for (unsigned i = 0; i < layout->field_count; i++) {
    const sfc_field *f = &layout->fields[i];
    if (f->kind != SFC_FIELD_NODE) continue;
    unsigned slot = n.count++;
    n.field[slot] = (int)i;
    sfc_node_value v;
    if (given[i] >= 0) {
      v = o.node[given[i]];
    } else {
      sfc_status st = node_from_env(layout, f, &v, err);
      if (st != SFC_OK) return st;
    }
    n.source[slot] = v.source;
    if (v.source == SFC_SOURCE_HOST) {
      sfc_status st = host_ordinal(f->name, &v.value, err);
      if (st != SFC_OK) return st;
    } else if (v.source == SFC_SOURCE_POOL) {
      if (n.auto_slot >= 0)
        return sfc_fail(err, SFC_INVALID_ARGUMENT,
                        "only one node field can be 'auto' ('%s' and '%s' "
                        "are)",
                        layout->fields[n.field[n.auto_slot]].name, f->name);
      n.auto_slot = (int)slot;
      v.value = 0;
    } else if (v.source == SFC_SOURCE_LEASE) {
      if (n.lease_slot >= 0)
        return sfc_fail(err, SFC_INVALID_ARGUMENT,
                        "only one node field can be 'lease' ('%s' and '%s' "
                        "are)",
                        layout->fields[n.field[n.lease_slot]].name, f->name);
      n.lease_slot = (int)slot;
      v.value = 0; /* the lease's, once acquired (generator.c) */
    } else if (v.value < 0) {
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "node value %s=%lld is negative: give 0..%llu, "
                      "\"auto\", \"host\" or \"env:NAME\"",
                      f->name, (long long)v.value, (unsigned long long)f->max);
    }
    if ((uint64_t)v.value > f->max)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "%s %lld does not fit in %u bits (0 to %llu)%s", f->name,
                      (long long)v.value, f->bits, (unsigned long long)f->max,
                      n.source[slot] == SFC_SOURCE_HOST
                          ? ": the host-name ordinal is too large"
                          : "");
    n.value[slot] = (uint64_t)v.value;
  }
  *out = n;
  return SFC_OK;
}

size_t sfc_node_text(const sfc_layout *layout, const sfc_node *node, char *buf,
                     size_t cap) {
  size_t n = 0;
  if (cap) buf[0] = '\0';
  for (unsigned i = 0; i < node->count; i++) {
    int k = snprintf(buf + n, cap > n ? cap - n : 0, "%s%s=%llu", i ? "," : "",
                     layout->fields[node->field[i]].name,
                     (unsigned long long)node->value[i]);
    n += (size_t)k;
  }
  return n;
}

uint64_t sfc_node_bits(const sfc_layout *layout, const sfc_node *node) {
  uint64_t bits = 0;
  for (unsigned i = 0; i < node->count; i++)
    bits |= node->value[i] << layout->fields[node->field[i]].shift;
  return bits;
}
