/* The simulated lease database: the one table of docs/leases.md, run by the
 * meaning of the core's three statements (core/src/lease_sql.c) on a clock
 * of its own, with the faults a schedule gives it: outages, a process's
 * requests cut off, its clock stepped. */
#ifndef SIM_LEASEDB_H
#define SIM_LEASEDB_H

#include <stdbool.h>
#include <stdint.h>

#include "proto.h"

void leasedb_reset(void);
/* Runs one statement of process `pid` (SYS_LEASE: a[0] the step, a[1] the
 * number of parameters, data the parameters, each NUL-terminated) and
 * fills its answer: ret -1 (not reached: str says why), 0 (no row) or the
 * row's columns, v[0..3] their values, v[5] the NULL ones as bits. */
void leasedb_exec(long pid, const sim_request *r, sim_reply *out);
/* The database unreachable for `us` from now; a process's requests cut
 * off for `us`; the database's clock stepped by `us`. */
void leasedb_down(int64_t us);
void leasedb_cut(long pid, int64_t us);
void leasedb_clock_step(int64_t us);
/* Something no core can help happened to `pid` (a pause, a failed
 * request, every value held): a refusal of its acquire is no defect. */
void leasedb_excuse(long pid);
/* The step of pid's latest excuse, 0 none. */
uint64_t leasedb_excused_at(long pid);
/* The latest acquire of `value` by `pid`: its order among every acquire
 * of the run (1, 2, …) and its ID space's number; false if none. */
bool leasedb_holder(long pid, int64_t value, uint64_t *order, int *space);
/* The latest true time at which the holder of acquire `order` may issue:
 * its last acquire or renewal the database ran, plus the lease less the
 * core's margin for clock rates (its fence counts from when the statement
 * was made, earlier). */
int64_t leasedb_deadline_ns(uint64_t order);

#endif
