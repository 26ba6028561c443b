/* Node identity: explicit values, environment, host-name ordinal, pool.
 * There is no silent default: two generators sharing a node value is the
 * first cause of duplicate IDs in the wild. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sfc_node_source_name(sfc_node_source source) {
  static const char *const names[] = {"explicit", "env", "host", "pool"};
  return (unsigned)source < 4 ? names[source] : "unknown";
}

/* A decimal node value: digits only, at most 18 of them. */
static bool parse_digits(const char *p, int64_t *value) {
  if (!p || !*p || strlen(p) > 18) return false;
  int64_t v = 0;
  for (; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    v = v * 10 + (*p - '0');
  }
  *value = v;
  return true;
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

sfc_status sfc_node_value_parse(const char *text, int64_t *value,
                                sfc_error *err) {
  if (text && strncmp(text, "env:", 4) == 0)
    return from_env(text + 4, value, err);
  if (text && strcmp(text, "auto") == 0) {
    *value = SFC_NODE_AUTO;
    return SFC_OK;
  }
  if (text && strcmp(text, "host") == 0) {
    *value = SFC_NODE_HOST;
    return SFC_OK;
  }
  if (!parse_digits(text, value))
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "node value '%s' is not a number, 'auto', 'host' or "
                    "'env:NAME'",
                    text ? text : "(null)");
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

sfc_status sfc_node_resolve(const sfc_layout *layout, const sfc_options *opts,
                            sfc_node *out, sfc_error *err) {
  sfc_node n;
  memset(&n, 0, sizeof n);
  n.auto_slot = -1;
  for (size_t k = 0; k < opts->node_count; k++) {
    const char *name = opts->node[k].name;
    int idx = sfc_layout_field_index(layout, name);
    if (idx < 0 || layout->fields[idx].kind != SFC_FIELD_NODE) {
      char spec[SFC_SPEC_MAX];
      sfc_layout_spec(layout, spec, sizeof spec);
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "'%s' is not a node field of layout %s",
                      name ? name : "(null)", spec);
    }
    for (size_t j = 0; j < k; j++)
      if (strcmp(opts->node[j].name, name) == 0)
        return sfc_fail(err, SFC_INVALID_ARGUMENT,
                        "node field '%s' is given twice", name);
  }
  for (unsigned i = 0; i < layout->field_count; i++) {
    const sfc_field *f = &layout->fields[i];
    if (f->kind != SFC_FIELD_NODE) continue;
    unsigned slot = n.count++;
    n.field[slot] = (int)i;
    int64_t v = 0;
    bool found = false;
    for (size_t k = 0; k < opts->node_count; k++)
      if (strcmp(opts->node[k].name, f->name) == 0) {
        v = opts->node[k].value;
        n.source[slot] = SFC_SOURCE_EXPLICIT;
        found = true;
      }
    if (!found) {
      char env[SFC_NAME_MAX + 16];
      env_name(f->name, env, sizeof env);
      const char *text = getenv(env);
      if (!text || !*text) return missing(layout, f->name, err);
      sfc_error e;
      if (sfc_node_value_parse(text, &v, &e) != SFC_OK)
        return strncmp(text, "env:", 4) == 0
                   ? sfc_fail(err, SFC_INVALID_ARGUMENT, "%s: %s", env,
                              e.message)
                   : sfc_fail(err, SFC_INVALID_ARGUMENT,
                              "%s='%s' is not a number, 'auto', 'host' or "
                              "'env:NAME'",
                              env, text);
      n.source[slot] = SFC_SOURCE_ENV;
    }
    if (v == SFC_NODE_HOST) {
      sfc_status st = host_ordinal(f->name, &v, err);
      if (st != SFC_OK) return st;
      n.source[slot] = SFC_SOURCE_HOST;
    } else if (v == SFC_NODE_AUTO) {
      if (n.auto_slot >= 0)
        return sfc_fail(err, SFC_INVALID_ARGUMENT,
                        "only one node field can be 'auto' ('%s' and '%s' "
                        "are)",
                        layout->fields[n.field[n.auto_slot]].name, f->name);
      n.auto_slot = (int)slot;
      n.source[slot] = SFC_SOURCE_POOL;
      v = 0;
    } else if (v < 0) {
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "node value %lld for '%s' is negative", (long long)v,
                      f->name);
    }
    if ((uint64_t)v > f->max)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "%s %lld does not fit in %u bits (0 to %llu)%s", f->name,
                      (long long)v, f->bits, (unsigned long long)f->max,
                      n.source[slot] == SFC_SOURCE_HOST
                          ? ": the host-name ordinal is too large"
                          : "");
    n.value[slot] = (uint64_t)v;
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
