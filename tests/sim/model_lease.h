/* The model of leased node values (model_lease.c): the lease row links
 * every holder of a value, one after the other. */
#ifndef SIM_MODEL_LEASE_H
#define SIM_MODEL_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void lease_model_reset(void);
/* The holder a leased generator of `pid` is, on `value` (its latest
 * acquire of it, by the database): an index, or -1 if the database never
 * gave it that value — itself a failure. `gen` names it in messages. */
int lease_model_holder(long pid, int64_t value, int gen, long netns,
                       int64_t since_ns);
/* A wall clock stepped back: a host's (netns), or every host's (-1). */
void lease_model_clock_back(long netns);
/* An ID holder h issued, from a call that began at true time call_ns:
 * NULL, or why no holder of that value could issue it (written into
 * why). */
const char *lease_model_id(int h, uint64_t id, int64_t call_ns, char *why,
                           size_t cap);

#endif
