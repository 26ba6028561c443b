/* A simulated process's lease host (driver_lease.c): what the CLI's libpq
 * host does (core/cli/lease.c), its database the simulated one. */
#ifndef SIM_DRIVER_LEASE_H
#define SIM_DRIVER_LEASE_H

#include "snowflake_c.h"

/* Acquires a value for the generator of `slot`, makes it, and starts the
 * slot's renewer. */
sfc_status lease_create(int slot, const sfc_layout *layout,
                        const sfc_options *opts, sfc_generator **out,
                        sfc_error *err);
/* Whether the slot's generator is on a lease. */
bool lease_held(int slot);
/* Stops the renewer, closes the generator and gives the value back (once;
 * nothing for a slot without a lease). */
void lease_end(int slot, sfc_generator *gen);
/* Frees the lease, after its generator. */
void lease_free(int slot);

#endif
