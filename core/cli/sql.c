/* sql: one layout's decode, time, fields and range as plain SQL functions
 * (LANGUAGE sql), for a PostgreSQL that loads no C extension (RDS, Cloud
 * SQL, Supabase). Every number in the text is a fact of the layout the core
 * resolved (each field's shift and largest value, the epoch, the tick's
 * length, the width): no layout rule is worked out here again.
 *
 * An ID is a bigint, which is signed: the IDs of a 64-bit layout (discord,
 * instagram) fit until the time its top bit is first set, which the command
 * names on standard error and in the text; range() gives no ID past it. A
 * bigint that is no ID of the layout (negative, or with bits above its
 * width) decodes to NULL, as the core refuses it.
 * The bodies call only immutable built-ins, so that PostgreSQL inlines them
 * into the query. range follows sfc_range (a tick belongs to [t0, t1) when
 * its start does), with the times to the microsecond. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The schema as a quoted identifier: "name", a '"' written twice. */
static void print_schema(const char *schema) {
  putchar('"');
  for (const char *p = schema; *p; p++) {
    if (*p == '"') putchar('"');
    putchar(*p);
  }
  putchar('"');
}

/* CREATE OR REPLACE FUNCTION "schema".name(args) RETURNS type ... AS $$ */
static void begin_function(const char *schema, const char *name,
                           const char *args, const char *returns,
                           const char *doc) {
  printf("\n-- %s\nCREATE OR REPLACE FUNCTION ", doc);
  print_schema(schema);
  printf(".\"%s\"(%s) RETURNS %s\nLANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$\n",
         name, args, returns);
}

static void end_function(void) {
  puts("$$;");
}

/* `schema`.name, to call a function made earlier. */
static void call(const char *schema, const char *name) {
  print_schema(schema);
  printf(".\"%s\"", name);
}

/* (id >> shift) & max: field i of the ID. */
static void print_field(const sfc_layout *l, unsigned i) {
  printf("((id >> %u) & %" PRIu64 ")", l->fields[i].shift, l->fields[i].max);
}

int cmd_sql(cli *c, int argc, char **argv) {
  const command *cmd = find_command("sql");
  (void)argv;
  if (argc) return usage_error(cmd, "sql takes no arguments");
  const char *schema = c->schema ? c->schema : "snowflake_c";
  if (!schema[0]) return usage_error(cmd, "--schema takes a name");
  const sfc_layout *l = &c->layout;
  char spec[SFC_SPEC_MAX], epoch[SFC_ISO_MAX];
  sfc_layout_spec(l, spec, sizeof spec);
  sfc_format_iso(l->epoch_ms, epoch, sizeof epoch);
  const sfc_field *tf = &l->fields[0];
  uint64_t low_mask = tf->shift == 0 ? 0 : (UINT64_MAX >> (64 - tf->shift));
  /* The last tick whose IDs a bigint holds: the time field's last, unless
   * the layout is 64 bits wide (the time field is the most significant). */
  uint64_t last_tick = (uint64_t)INT64_MAX >> tf->shift;
  if (last_tick > tf->max) last_tick = tf->max;
  char past[SFC_ISO_MAX] = "";
  if (last_tick < tf->max) {
    int64_t us = l->epoch_ms * 1000 + (int64_t)(last_tick + 1) * l->unit_us;
    sfc_format_iso(us / 1000, past, sizeof past);
    fprintf(stderr,
            PROG ": warning: layout '%s' is 64 bits wide: its IDs from %s on "
                 "set the top bit and are past bigint (largest 2^63-1); the "
                 "functions take the IDs before\n",
            spec, past);
  }

  printf("-- snowflake-c %s sql: the IDs of layout %s, epoch %" PRId64
         " (%s),\n-- as bigint, in schema ",
         sfc_version_string(), spec, l->epoch_ms, epoch);
  print_schema(schema);
  printf(". Plain SQL functions: no extension needed.\nCREATE SCHEMA IF "
         "NOT EXISTS ");
  print_schema(schema);
  puts(";");
  if (past[0])
    printf("-- The layout is 64 bits wide: its IDs from %s on set the top "
           "bit, past\n-- bigint; range() gives none of them.\n",
           past);

  begin_function(schema, "is_id", "id bigint", "boolean",
                 "Whether id is an ID of the layout: not negative, no bit "
                 "above its width.");
  /* A bigint is at most 63 bits: a wider layout needs no shift (one by
   * 64 is undefined). */
  if (l->total_bits < 63)
    printf("  SELECT id >= 0 AND id >> %u = 0\n", l->total_bits);
  else
    puts("  SELECT id >= 0");
  end_function();

  begin_function(schema, "time_ms", "id bigint", "bigint",
                 "The ID's time, Unix ms (the start of its tick, rounded "
                 "down); NULL for no ID.");
  printf("  SELECT (%" PRId64 " + ", l->epoch_ms * 1000);
  print_field(l, 0);
  printf(" * %" PRId64 ") / 1000 WHERE ", l->unit_us);
  call(schema, "is_id");
  puts("(id)");
  end_function();

  begin_function(schema, "decode_time", "id bigint", "timestamptz",
                 "The start of the ID's tick, to the microsecond.");
  printf("  SELECT ((DATE '1970-01-01' + (us / 86400000000)::int)::timestamp"
         "\n          + (us %% 86400000000) * INTERVAL '1 microsecond') AT "
         "TIME ZONE 'UTC'\n  FROM (SELECT %" PRId64 " + ",
         l->epoch_ms * 1000);
  print_field(l, 0);
  printf(" * %" PRId64 " AS us) t WHERE ", l->unit_us);
  call(schema, "is_id");
  puts("(id)");
  end_function();

  begin_function(schema, "iso_time", "ms bigint", "text",
                 "Unix ms (from 1970) as ISO-8601 UTC with ms and Z, as the "
                 "canonical JSON writes it.");
  puts("  SELECT CASE WHEN y <= 9999 THEN lpad(y::text, 4, '0')\n"
       "              ELSE '+' || lpad(y::text, 6, '0') END\n"
       "         || '-' || lpad(m::text, 2, '0') || '-' || lpad(d::text, 2, "
       "'0')\n"
       "         || 'T' || lpad((r / 3600000)::text, 2, '0')\n"
       "         || ':' || lpad((r / 60000 % 60)::text, 2, '0')\n"
       "         || ':' || lpad((r / 1000 % 60)::text, 2, '0')\n"
       "         || '.' || lpad((r % 1000)::text, 3, '0') || 'Z'\n"
       "  FROM (SELECT extract(year FROM dt)::int AS y, extract(month FROM "
       "dt)::int AS m,\n"
       "               extract(day FROM dt)::int AS d, r\n"
       "        FROM (SELECT DATE '1970-01-01' + (ms / 86400000)::int AS dt,\n"
       "                     ms % 86400000 AS r) a) b");
  end_function();

  begin_function(schema, "decode_json", "id bigint", "text",
                 "The canonical JSON of the ID, byte for byte what every "
                 "snowflake-c binding prints; NULL for no ID.");
  fputs("  SELECT '{\"id\":\"' || id::text || '\",\"time_ms\":' || ms::text\n"
        "         || ',\"time\":\"' || ",
        stdout);
  call(schema, "iso_time");
  puts("(ms) || '\"'");
  for (unsigned i = 1; i < l->field_count; i++) {
    printf("         || ',\"%s\":' || ", l->fields[i].name);
    print_field(l, i);
    puts("::text");
  }
  fputs("         || '}'\n  FROM (SELECT ", stdout);
  call(schema, "time_ms");
  puts("(id) AS ms) t WHERE ms IS NOT NULL");
  end_function();

  begin_function(schema, "decode", "id bigint", "jsonb",
                 "The canonical JSON as jsonb (which keeps its keys in an "
                 "order of its own: decode_json has the canonical text).");
  fputs("  SELECT ", stdout);
  call(schema, "decode_json");
  puts("(id)::jsonb");
  end_function();

  begin_function(schema, "field", "id bigint, name text", "bigint",
                 "The value of the field called name (for time: the tick "
                 "count); NULL for no ID or no such field.");
  puts("  SELECT CASE name");
  for (unsigned i = 0; i < l->field_count; i++) {
    printf("    WHEN '%s' THEN ", l->fields[i].name);
    print_field(l, i);
    putchar('\n');
  }
  fputs("  END WHERE ", stdout);
  call(schema, "is_id");
  puts("(id)");
  end_function();

  begin_function(schema, "range", "t0 timestamptz, t1 timestamptz",
                 "TABLE(lo bigint, hi bigint)",
                 "The smallest and largest ID whose tick starts in [t0, t1): "
                 "t0 included, t1 not;\n-- no row when none does (an empty "
                 "interval, before the epoch, past the time field's end).");
  printf("  SELECT lo_tick << %u, (hi_tick << %u) | %" PRIu64 "\n", tf->shift,
         tf->shift, low_mask);
  printf("  FROM (SELECT CASE WHEN a <= 0 THEN 0 ELSE (a + %" PRId64
         " - 1) / %" PRId64 " END AS lo_tick,\n"
         "               least((b - 1) / %" PRId64 ", %" PRIu64
         ") AS hi_tick, a, b\n",
         l->unit_us, l->unit_us, l->unit_us, last_tick);
  printf("        FROM (SELECT (extract(epoch FROM t0 - to_timestamp(0)) * "
         "1000000)::bigint - "
         "%" PRId64 " AS a,\n"
         "                     (extract(epoch FROM t1 - to_timestamp(0)) * "
         "1000000)::bigint - "
         "%" PRId64 " AS b) d) k\n",
         l->epoch_ms * 1000, l->epoch_ms * 1000);
  puts("  WHERE b > a AND b > 0 AND lo_tick <= hi_tick");
  end_function();
  return 0;
}
