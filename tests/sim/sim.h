/* What the kernel tells the model of the simulated host as it happens
 * (model.c), and how the run reports a failure. */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { SIM_END_KILL = 1, SIM_END_EXIT, SIM_END_EXEC, SIM_END_REBOOT };

/* A report's kind (SYS_REPORT a[3]). */
enum {
  REPORT_WALL = 0,
  REPORT_CALLER_TIMED = 1,
  REPORT_NODE = 2,
  REPORT_CLOSED = 3 /* a signal handler closed the generator of slot a[4] */
};

void sim_model_spawned(long pid, long netns, long mntns, long uid);
void sim_model_ended(long pid, int how);
void sim_model_forked(long parent, long child);
void sim_model_command(long pid, int64_t tid, int64_t kind, int64_t slot,
                       int64_t n, int64_t flag, const char *text);
/* A signal handler of `pid` is about to close the generator of `slot`,
 * and has closed it. */
void sim_model_closing(long pid, int64_t slot);
void sim_model_closed(long pid, int64_t slot);
void sim_model_report(long pid, int64_t tid, int64_t status, int64_t kind,
                      const uint64_t *ids, size_t n, bool final,
                      const char *message, int64_t wall_ns);

/* The child of `parent`'s latest fork not asked for yet, or 0. */
long sim_last_child(long parent);
/* The model's verdict so far: NULL, or what went wrong. */
const char *sim_model_failure(void);
void sim_model_reset(bool records_link_live, bool claims_by_file);
/* Counts for the run's summary. */
typedef struct sim_counts {
  uint64_t ids, generators, refusals, duplicates_excluded;
} sim_counts;
void sim_model_counts(sim_counts *out);

#endif
