CREATE TABLE IF NOT EXISTS snowflake_c_leases (
  space text NOT NULL,
  node bigint NOT NULL CHECK (node >= 0),
  holder text NOT NULL,
  token text NOT NULL,
  expires_at timestamptz NOT NULL,
  horizon bigint NOT NULL,
  previous bigint NOT NULL DEFAULT -1,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space, node)
);
