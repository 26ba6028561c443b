/* One line per option for the tests and drivers: sets it by the table's id
 * (sfc_options_set_id) and stops the run when the core refuses, since a
 * test whose setup failed proves nothing. */
#ifndef SFC_TEST_SET_OPTIONS_H
#define SFC_TEST_SET_OPTIONS_H

#include "snowflake_c.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void set_option_value(sfc_options *o, sfc_option id,
                                    const sfc_value *v) {
  sfc_error err;
  if (sfc_options_set_id(o, id, v, &err) != SFC_OK) {
    fprintf(stderr, "setting option %s: %s\n", sfc_option_at((size_t)id)->name,
            err.message);
    abort();
  }
}

/* A duration in ms; INT64_MIN restores the default. */
static inline void set_ms(sfc_options *o, sfc_option id, int64_t ms) {
  sfc_value v = {
      ms == INT64_MIN ? SFC_TYPE_NONE : SFC_TYPE_INT, ms, 0, 0, NULL, 0, 0};
  set_option_value(o, id, &v);
}

/* A path, a text or a choice by name; NULL restores the default. */
static inline void set_text(sfc_options *o, sfc_option id, const char *text) {
  sfc_value v = {text ? SFC_TYPE_TEXT : SFC_TYPE_NONE,
                 0,
                 0,
                 0,
                 text,
                 text ? strlen(text) : 0,
                 0};
  set_option_value(o, id, &v);
}

static inline void set_bool(sfc_options *o, sfc_option id, bool on) {
  sfc_value v = {SFC_TYPE_BOOL, on, 0, 0, NULL, 0, 0};
  set_option_value(o, id, &v);
}

static inline void set_rollback(sfc_options *o, sfc_rollback r) {
  set_text(o, SFC_OPTION_ROLLBACK, sfc_rollback_at((size_t)r)->name);
}

static inline void set_time_source(sfc_options *o, sfc_time_source t) {
  set_text(o, SFC_OPTION_TIME_SOURCE,
           sfc_option_at(SFC_OPTION_TIME_SOURCE)->choices[t]);
}

/* What an option holds (sfc_options_get): a duration's ms (INT64_MIN when
 * unset), a flag, a text or a choice's name (NULL when unset). */
static inline int64_t get_ms(const sfc_options *o, sfc_option id) {
  sfc_value v;
  if (sfc_options_get(o, id, &v) != SFC_OK) abort();
  return v.type == SFC_TYPE_INT ? v.i : INT64_MIN;
}

static inline bool get_bool(const sfc_options *o, sfc_option id) {
  sfc_value v;
  if (sfc_options_get(o, id, &v) != SFC_OK) abort();
  return v.i != 0;
}

static inline const char *get_text(const sfc_options *o, sfc_option id) {
  sfc_value v;
  if (sfc_options_get(o, id, &v) != SFC_OK) abort();
  return v.type == SFC_TYPE_TEXT ? v.text : NULL;
}

/* The node value of the stats' j-th node field. */
static inline uint64_t stats_node(const sfc_stats *s, size_t j) {
  const char *key;
  sfc_value v;
  return sfc_stats_entry(s, SFC_STAT_NODE, j, &key, &v) ? v.u : 0;
}

#endif
