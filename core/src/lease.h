/* lease_sql.c: the statement of each step (lease.c). */
#ifndef SFC_LEASE_H
#define SFC_LEASE_H

SFC_INTERNAL const char *sfc_lease_sql(sfc_lease_step step);

#endif
