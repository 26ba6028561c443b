/* The model of leased node values. With leases, what links two generators
 * is the lease row of their value: the database orders its holders (the
 * acquires that took the value), and each holder starts after the horizon
 * every earlier one wrote and issues nothing past its own — whatever the
 * clocks of the hosts and of the database did. So the integers of the
 * holders of one value, in the order the database gave it, are disjoint
 * ranges, each above the one before: an integer of a holder at or below
 * an earlier holder's highest, or at or above a later holder's lowest, is
 * an ID issued past the fence (the deadline or the horizon) while the
 * value may have been another's. The check sees every ID as it is
 * reported, in whatever order the reports come.
 *
 * And no holder issues from a call begun past its deadline: the lease
 * from its last acquire or renewal the database ran, less the margin —
 * later than the deadline the holder fences itself by (counted from when
 * its statement was made): the fence's limit is the last tick that ends
 * by the deadline, since the hot path issues in a tick to its end (seed
 * 432 caught a limit of the tick the deadline fell in: 10 ms ticks, an ID
 * 0.5 ms past). A wall clock
 * stepped back lets the hot path issue a little past the deadline until it
 * looks again, below the horizon still (docs/leases.md): a holder whose clock
 * stepped back since it began is judged by the horizon alone. */
#define _GNU_SOURCE
#include "model_lease.h"

#include "kernel.h"
#include "leasedb.h"

#include <stdio.h>
#include <string.h>

#define HOLDERS 512
#define HOSTS 64

typedef struct holder {
  uint64_t order; /* the acquire's place among all of the run */
  int space, gen;
  long pid, netns;
  int64_t value, since_ns;
  bool any;
  uint64_t lo, hi; /* its lowest and highest integer so far */
} holder;

static holder holders[HOLDERS];
static int count;
static int64_t back_ns[HOSTS + 1]; /* the last step back: a host's, all's */

void lease_model_reset(void) {
  memset(holders, 0, sizeof holders);
  memset(back_ns, 0, sizeof back_ns);
  count = 0;
}

void lease_model_clock_back(long netns) {
  back_ns[netns < 0 ? HOSTS : netns % HOSTS] = k_real_ns() + 1;
}

int lease_model_holder(long pid, int64_t value, int gen, long netns,
                       int64_t since_ns) {
  uint64_t order;
  int space;
  if (!leasedb_holder(pid, value, &order, &space) || count == HOLDERS)
    return -1;
  holders[count] = (holder){.order = order,
                            .space = space,
                            .gen = gen,
                            .pid = pid,
                            .netns = netns,
                            .value = value,
                            .since_ns = since_ns};
  return count++;
}

const char *lease_model_id(int h, uint64_t id, int64_t call_ns, char *why,
                           size_t cap) {
  holder *me = &holders[h];
  const bool stepped_back = back_ns[me->netns % HOSTS] >= me->since_ns ||
                            back_ns[HOSTS] >= me->since_ns;
  const int64_t deadline = leasedb_deadline_ns(me->order);
  if (!stepped_back && call_ns >= deadline) {
    snprintf(why, cap,
             "%llu issued by generator %d (pid %ld), holder of leased value "
             "%lld by acquire %llu, from a call begun %.3f ms past its "
             "deadline (its last acquire or renewal, plus the lease less the "
             "margin)",
             (unsigned long long)id, me->gen, me->pid, (long long)me->value,
             (unsigned long long)me->order, (double)(call_ns - deadline) / 1e6);
    return why;
  }
  for (int i = 0; i < count; i++) {
    const holder *o = &holders[i];
    if (i == h || !o->any || o->space != me->space || o->value != me->value)
      continue;
    if (o->order < me->order && id <= o->hi) {
      snprintf(why, cap,
               "%llu issued by generator %d (pid %ld), holder of leased "
               "value %lld by acquire %llu, is not above %llu, issued by "
               "generator %d (pid %ld), its holder by the earlier acquire "
               "%llu: the later holder did not start after the horizon",
               (unsigned long long)id, me->gen, me->pid, (long long)me->value,
               (unsigned long long)me->order, (unsigned long long)o->hi, o->gen,
               o->pid, (unsigned long long)o->order);
      return why;
    }
    if (o->order > me->order && id >= o->lo) {
      snprintf(why, cap,
               "%llu issued by generator %d (pid %ld), holder of leased "
               "value %lld by acquire %llu, is not below %llu, issued by "
               "generator %d (pid %ld), its holder by the later acquire %llu: "
               "an ID past the fence (deadline or horizon) of a value taken "
               "by another",
               (unsigned long long)id, me->gen, me->pid, (long long)me->value,
               (unsigned long long)me->order, (unsigned long long)o->lo, o->gen,
               o->pid, (unsigned long long)o->order);
      return why;
    }
  }
  if (!me->any || id < me->lo) me->lo = id;
  if (!me->any || id > me->hi) me->hi = id;
  me->any = true;
  return NULL;
}
