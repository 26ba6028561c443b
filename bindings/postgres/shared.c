/* The server's one generator, in shared memory: the postmaster creates it
 * when it sets up shared memory (sfc_generator_new_shared), every backend
 * forked from it draws from it, and the postmaster frees it when shared
 * memory goes (shutdown, or the reset of a crash-restart, which lets go of
 * the node value's claim before the next cycle takes it again). Its state
 * folder is <data directory>/snowflake_c. A generator that cannot be made
 * leaves the reason here for next_id() to raise, and the server runs on:
 * decoding needs no generator. */
#include "snowflake_c_pg.h"

#include <errno.h>
#include <sys/stat.h>

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

typedef struct shared_state {
  sfc_generator *gen; /* NULL: none, and `err` says why */
  sfc_error err;
  /* then the generator's memory, aligned to 64 bytes */
} shared_state;

#define ALIGNMENT 64

static shmem_request_hook_type prev_request_hook;
static shmem_startup_hook_type prev_startup_hook;
static shared_state *shared;

static Size region_size(void) {
  return add_size(sizeof(shared_state) + ALIGNMENT,
                  sfc_generator_shared_size());
}

static void request_memory(void) {
  if (prev_request_hook) prev_request_hook();
  RequestAddinShmemSpace(region_size());
}

static void free_generator(int code, Datum arg) {
  shared_state *s = (shared_state *)DatumGetPointer(arg);
  (void)code;
  if (s->gen) sfc_generator_free(s->gen);
  s->gen = NULL;
}

static sfc_status create(shared_state *s) {
  sfc_layout layout;
  sfc_options opts;
  sfk_node_list node;
  char dir[MAXPGPATH];
  sfc_value path = {SFC_TYPE_TEXT, 0, 0, 0, dir, 0, 0};
  void *mem = (void *)TYPEALIGN(ALIGNMENT, (uintptr_t)(s + 1));
  sfc_status st = sfc_pg_settings_layout(&layout, &s->err);
  if (st != SFC_OK) return st;
  st = sfc_pg_settings_options(&opts, &node, &s->err);
  if (st != SFC_OK) return st;
  snprintf(dir, sizeof dir, "%s/snowflake_c", DataDir);
  if (mkdir(dir, S_IRWXU) != 0 && errno != EEXIST) {
    snprintf(s->err.message, sizeof s->err.message,
             "cannot create the state folder %s: %s", dir, strerror(errno));
    s->err.status = SFC_STATE_ERROR;
    return SFC_STATE_ERROR;
  }
  path.len = strlen(dir);
  st = sfc_options_set_id(&opts, SFC_OPTION_STATE_DIR, &path, &s->err);
  if (st != SFC_OK) return st;
  return sfc_generator_new_shared(mem, sfc_generator_shared_size(), &layout,
                                  &opts, &s->gen, &s->err);
}

static void startup(void) {
  bool found;
  if (prev_startup_hook) prev_startup_hook();
  LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
  shared = ShmemInitStruct("snowflake_c", region_size(), &found);
  if (!found) {
    memset(shared, 0, sizeof *shared);
    if (create(shared) != SFC_OK) {
      shared->gen = NULL;
      ereport(WARNING,
              (errmsg("snowflake_c: no generator, next_id() will fail: %s",
                      shared->err.message)));
    } else {
      const char *text;
      on_shmem_exit(free_generator, PointerGetDatum(shared));
      for (size_t i = 0; sfc_generator_warning_at(shared->gen, i, &text); i++)
        ereport(WARNING, (errmsg("snowflake_c: %s", text)));
    }
  }
  LWLockRelease(AddinShmemInitLock);
}

void sfc_pg_shared_install(void) {
  prev_request_hook = shmem_request_hook;
  shmem_request_hook = request_memory;
  prev_startup_hook = shmem_startup_hook;
  shmem_startup_hook = startup;
}

sfc_generator *sfc_pg_shared_generator(void) {
  if (!sfc_pg_preloaded || shared == NULL)
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake_c generates IDs only when the server loads it "
                    "at start: add shared_preload_libraries = 'snowflake_c' "
                    "to postgresql.conf, set snowflake_c.node, and restart "
                    "the server"),
             errhint("Decoding works without it.")));
  if (shared->gen == NULL)
    sfc_pg_raise_hint(&shared->err,
                      "The server's generator is made at start from the "
                      "snowflake_c.* settings (snowflake_c.node gives node "
                      "values as NAME=VALUE pairs): fix them in "
                      "postgresql.conf and restart the server.");
  return shared->gen;
}
