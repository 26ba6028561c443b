/* The host-wide claim where there is no host to claim in (WebAssembly: an
 * instance sees no other process or file). The guard is off there
 * (sfc_os_no_claim, os.h), so these are never reached; taking a claim is
 * refused, saying why, should a caller try. */
#include "internal.h"

#if defined(__wasm__)

bool sfc_claim_by_file;

static sfc_status no_claim(sfc_error *err, char *where, size_t cap) {
  if (cap) where[0] = '\0';
  return sfc_fail(err, SFC_STATE_ERROR, "%s", sfc_os_no_claim());
}

/* Every claim of this system lives beside its hand-over record, which
 * the records folder shows. */
sfc_status sfc_os_claim_each(void (*fn)(void *ctx, const char *hex), void *ctx,
                             sfc_error *err) {
  (void)fn;
  (void)ctx;
  (void)err;
  return SFC_OK;
}

sfc_status sfc_os_claim_take(const char *hex, sfc_fd *out, char *where,
                             size_t cap, bool *held, sfc_holder *who,
                             sfc_error *err) {
  (void)hex;
  (void)who;
  *out = SFC_NO_FD;
  *held = false;
  return no_claim(err, where, cap);
}

bool sfc_os_claim_holder(const char *hex, sfc_holder *who) {
  (void)hex;
  (void)who;
  return false;
}

void sfc_os_claim_release(const char *hex, sfc_fd fd) {
  (void)hex;
  (void)fd;
}

sfc_status sfc_file_claim_take(const char *hex, sfc_fd *out, char *where,
                               size_t cap, bool *held, sfc_holder *who,
                               sfc_error *err) {
  return sfc_os_claim_take(hex, out, where, cap, held, who, err);
}

bool sfc_file_claim_holder(const char *hex, sfc_holder *who) {
  return sfc_os_claim_holder(hex, who);
}

void sfc_file_claim_release(const char *hex, sfc_fd fd) {
  sfc_os_claim_release(hex, fd);
}

sfc_status sfc_claim_os_error(sfc_error *err, const char *where,
                              const char *what, int e) {
  (void)what;
  (void)e;
  return sfc_fail(err, SFC_STATE_ERROR, "%s: %s", where, sfc_os_no_claim());
}

#else
typedef int sfc_claim_os_none_unused; /* nothing to compile here */
#endif
