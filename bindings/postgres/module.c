/* The module: its magic block and what loading it sets up. */
#include "snowflake_c_pg.h"

#include "miscadmin.h"

PG_MODULE_MAGIC;

bool sfc_pg_preloaded = false;

void _PG_init(void);

void _PG_init(void) {
  /* The shared generator needs shared memory, which only a library loaded
   * at server start can ask for, and its settings are read at start only;
   * decoding needs neither. */
  if (process_shared_preload_libraries_in_progress) {
    sfc_pg_preloaded = true;
    sfc_pg_settings_define();
    sfc_pg_shared_install();
  }
}
