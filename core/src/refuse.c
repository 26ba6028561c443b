/* The refusal of a value held elsewhere, in words: who holds it (a
 * process, its uid, or how to find it), which generator of it, and what to
 * do. */
#include "internal.h"

#include <stdio.h>

sfc_status sfc_claim_refuse(const sfc_claim *c, const sfc_generator *g,
                            sfc_holder *who, sfc_error *err) {
  /* (sfc_claim_take looked again for a holder that did not answer.) */
  char node[SFC_NODE_TEXT_MAX], by[160], what[240] = "", find[80] = "";
  sfc_node_text(&g->layout, &g->node, node, sizeof node);
  if (who->pid <= 0 && who->find)
    snprintf(find, sizeof find, "; %s shows which", who->find);
  if (who->pid <= 0 && who->uid >= 0)
    snprintf(by, sizeof by, "a process of uid %lld that does not answer%s",
             who->uid, find);
  else if (who->pid <= 0)
    snprintf(by, sizeof by, "another live process (it does not answer%s)",
             find);
  else if (who->uid >= 0 && who->uid != sfc_os_uid())
    snprintf(by, sizeof by, "live process %ld of uid %lld", who->pid, who->uid);
  else
    snprintf(by, sizeof by, "live process %ld", who->pid);
  /* A holder in this process that the newer one does not take over
   * (fork.c): another layout, a shared or leased generator. */
  const bool here = who->pid == sfc_os_pid();
  if (c->other[0] && here)
    snprintf(what, sizeof what, ", of %.160s, which can issue its integers,",
             c->other);
  else if (c->other[0])
    snprintf(what, sizeof what,
             ", whose generator of %.160s can issue the same integers",
             c->other);
  return sfc_fail(
      err, SFC_WORKER_UNAVAILABLE,
      "node value %s is held by %s%s%s%s (host-wide claim %s)%s", node, by,
      here ? ", this process: another of its generators" : "", what,
      here ? " is still open" : "", c->where,
      here ? "; close that one first, or use it again (only a generator of "
             "the same layout and node values takes it over)"
           : ": two live generators of one value issue the same IDs; give "
             "each its own, or a pool (auto, with a state_dir), or turn the "
             "guard off to share it on purpose");
}
