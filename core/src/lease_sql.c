/* The SQL of leases, in one place: the table and the three statements the
 * host runs for the core (lease.c). Plain SQL for a role with table
 * privileges only: no extension, no function of our own; each statement is
 * one round trip. The text of the table is sql/leases.sql, kept equal by
 * the lease suite. */
#include "internal.h"

#include "lease.h"

/* One row per ID space and node value. `horizon` is the mark written
 * ahead: no holder of the value issues an ID past it, and a holder that
 * takes the value over starts after it (`previous` keeps the horizon found
 * by the acquire that took it). `token` tells one acquire from another of
 * the same holder key. */
static const char table_sql[] =
    "CREATE TABLE IF NOT EXISTS snowflake_c_leases (\n"
    "  space text NOT NULL,\n"
    "  node bigint NOT NULL CHECK (node >= 0),\n"
    "  holder text NOT NULL,\n"
    "  token text NOT NULL,\n"
    "  expires_at timestamptz NOT NULL,\n"
    "  horizon bigint NOT NULL,\n"
    "  previous bigint NOT NULL DEFAULT -1,\n"
    "  updated_at timestamptz NOT NULL DEFAULT now(),\n"
    "  PRIMARY KEY (space, node)\n"
    ");\n";

const char *sfc_lease_table_sql(void) {
  return table_sql;
}

/* $1 space, $2 holder key, $3 token, $4..$5 the field's range, $6 the
 * lease in ms, $7 the grace in ms (a value is free once its lease expired
 * by the database's clock plus this), $8 the horizon proposed.
 *
 * The candidates: the value this key held last, then the whole range in
 * order; free ones only, sorted, at most 256. Each is tried with a
 * transaction-scoped advisory lock (a built-in any role may call) until
 * one is taken, so that simultaneous acquirers skip each other's choices
 * instead of colliding; the lock qual stays above the sorted subquery
 * (volatile quals are never pushed down), so only the values read are
 * locked. The upsert takes the row only if it is still expired when
 * locked: a race lost to a renewal or an acquirer that committed first
 * returns no value, and the core asks again at once. One row always
 * comes back: the value (or NULL), the previous horizon, ours, and how
 * many values are held. */
static const char acquire_sql[] =
    "WITH old AS (\n"
    "  SELECT node, holder, expires_at FROM snowflake_c_leases\n"
    "   WHERE space = $1),\n"
    "live AS (\n"
    "  SELECT node FROM old\n"
    "   WHERE expires_at + $7::bigint * interval '1 millisecond' > now()),\n"
    "cand AS (\n"
    "  SELECT v FROM (\n"
    "    SELECT v, o FROM (\n"
    "      SELECT node AS v, 0 AS o FROM old\n"
    "       WHERE holder = $2 AND node BETWEEN $4::bigint AND $5::bigint\n"
    "      UNION ALL\n"
    "      SELECT g, 1 FROM generate_series($4::bigint, $5::bigint) g) c\n"
    "    WHERE NOT EXISTS (SELECT 1 FROM live WHERE live.node = c.v)\n"
    "    ORDER BY o, v LIMIT 256) f\n"
    "  WHERE pg_try_advisory_xact_lock(hashtext($1), f.v::integer)\n"
    "  LIMIT 1),\n"
    "took AS (\n"
    "  INSERT INTO snowflake_c_leases AS l\n"
    "    (space, node, holder, token, expires_at, horizon, previous,\n"
    "     updated_at)\n"
    "  SELECT $1, v, $2, $3, now() + $6::bigint * interval '1 millisecond',\n"
    "         $8::bigint, -1, now() FROM cand\n"
    "  ON CONFLICT (space, node) DO UPDATE\n"
    "    SET holder = excluded.holder, token = excluded.token,\n"
    "        expires_at = excluded.expires_at,\n"
    "        horizon = greatest(l.horizon, excluded.horizon),\n"
    "        previous = l.horizon, updated_at = now()\n"
    "    WHERE l.expires_at + $7::bigint * interval '1 millisecond'\n"
    "          <= now()\n"
    "  RETURNING l.node, l.previous, l.horizon)\n"
    "SELECT t.node, t.previous, t.horizon, (SELECT count(*) FROM live)\n"
    "  FROM (SELECT 1) one LEFT JOIN took t ON true";

/* $1 space, $2 node, $3 token, $4 the lease in ms, $5 the horizon
 * proposed. No row: the value is no longer ours. */
static const char renew_sql[] =
    "UPDATE snowflake_c_leases\n"
    "   SET expires_at = now() + $4::bigint * interval '1 millisecond',\n"
    "       horizon = greatest(horizon, $5::bigint), updated_at = now()\n"
    " WHERE space = $1 AND node = $2::bigint AND token = $3\n"
    "RETURNING horizon";

/* $1 space, $2 node, $3 token, $4 the last tick issued (the generator is
 * closed: the exact bound for the next holder). */
static const char release_sql[] =
    "UPDATE snowflake_c_leases\n"
    "   SET expires_at = '-infinity',\n"
    "       horizon = greatest(previous, $4::bigint), updated_at = now()\n"
    " WHERE space = $1 AND node = $2::bigint AND token = $3\n"
    "RETURNING node";

const char *sfc_lease_sql(sfc_lease_step step) {
  switch (step) {
  case SFC_LEASE_ACQUIRE:
    return acquire_sql;
  case SFC_LEASE_RENEW:
    return renew_sql;
  case SFC_LEASE_RELEASE:
    return release_sql;
  default:
    return NULL;
  }
}
