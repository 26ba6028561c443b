/* The private sides of sfc_options, sfc_stats and sfc_lease_stats: the
 * public header gives only storage of a fixed size, so that an option or a
 * stat added here (and as a row of its table) changes no caller. The storage is
 * read and written with memcpy only: strict-aliasing safe. */
#ifndef SFC_OPAQUE_H
#define SFC_OPAQUE_H

#include <string.h>

/* "Not given" for a duration option: the option's default applies. */
#define SFC_UNSET INT64_MIN

/* Set by sfc_options_init: storage never initialised is refused. */
#define SFC_OPTIONS_MAGIC UINT64_C(0x5fc0b7105)

typedef struct sfc_opts {
  uint64_t magic;
  const sfc_node_value *node; /* kept by pointer: sfc_options_set_nodes */
  size_t node_count;
  int rollback; /* the rows: options.c */
  int random_start;
  int time_source;
  int guard_off;
  int64_t max_wait_ms;
  int64_t max_drift_ms;
  int64_t state_reserve_ms;
  int64_t lease_duration_ms;
  const char *state_dir;
  const char *lease_key;
} sfc_opts;

_Static_assert(sizeof(sfc_opts) <= sizeof(sfc_options) &&
                   _Alignof(sfc_opts) <= _Alignof(sfc_options),
               "the options fit their public storage");

static inline sfc_opts sfc_opts_of(const sfc_options *opts) {
  sfc_opts o;
  memcpy(&o, opts, sizeof o);
  return o;
}

typedef struct sfc_stats_data {
  uint64_t ids_issued, waits, borrowed_ticks, rollbacks, rollbacks_waited,
      rollbacks_refused, clock_bumps, node_switches;
  int64_t last_time_ms;
  uint64_t clock;
  sfc_rollback rollback;
  int64_t max_wait_ms, max_drift_ms;
  unsigned node_count; /* node fields, in layout order */
  uint64_t node_values[SFC_MAX_FIELDS];
  sfc_node_source node_sources[SFC_MAX_FIELDS];
  const char *node_names[SFC_MAX_FIELDS]; /* owned by the generator */
  const char *guard;                      /* owned by the generator */
} sfc_stats_data;

_Static_assert(sizeof(sfc_stats_data) <= sizeof(sfc_stats) &&
                   _Alignof(sfc_stats_data) <= _Alignof(sfc_stats),
               "the stats fit their public storage");

typedef struct sfc_lease_stats_data {
  const char *state; /* static */
  const char *field; /* owned by the lease */
  int64_t value, expires_ms, horizon_ms;
  uint64_t renewals, failures;
  char error[SFC_MESSAGE_MAX];
  int64_t duration_ms;
} sfc_lease_stats_data;

_Static_assert(sizeof(sfc_lease_stats_data) <= sizeof(sfc_lease_stats) &&
                   _Alignof(sfc_lease_stats_data) <= _Alignof(sfc_lease_stats),
               "a lease's stats fit their public storage");

/* options.c — the rows of the options. */
/* Every option's value within its row's range and choices, and `opts` made
 * by sfc_options_init. */
SFC_INTERNAL sfc_status sfc_options_check(const sfc_options *opts,
                                          sfc_error *err);
/* The duration option's ms in force: as set, else its default (the
 * strategy `rollback`'s for max_wait and max_drift). */
SFC_INTERNAL int64_t sfc_option_ms(const sfc_options *opts, sfc_option option,
                                   sfc_rollback rollback);

/* option_value.c: `v` as option `o` takes it — CHOICE its index, BOOL 0
 * or 1, DURATION ms in *num; PATH and TEXT the pointer in *text — or
 * SFC_INVALID_ARGUMENT naming the option as the caller did (`name`,
 * `len`). */
SFC_INTERNAL sfc_status sfc_option_value(const sfc_option_info *o,
                                         const char *name, size_t len,
                                         const sfc_value *v, int64_t *num,
                                         const char **text, sfc_error *err);

#endif
