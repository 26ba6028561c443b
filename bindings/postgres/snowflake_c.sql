-- snowflake_c: the functions of the extension, in the schema snowflake_c.
-- Every function is the core's: the C glue converts SQL values and maps
-- errors (a SQLSTATE per error kind, the core's message).
\echo Use "CREATE EXTENSION snowflake_c" to load this file. \quit

-- The layout of every decode-side function: exactly one of
-- preset => 'twitter', or layout => 'time:41@1ms,worker:10,seq:12' with
-- epoch => '1704067200000' (Unix ms or an ISO-8601 UTC instant), as in
-- every language. Not STRICT: the layout arguments default to NULL.

CREATE FUNCTION decode(id bigint, preset text DEFAULT NULL,
                       layout text DEFAULT NULL, epoch text DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sfc_pg_decode'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION decode(bigint, text, text, text) IS
'The decoded ID as jsonb: id, time_ms, time and every field by name';

CREATE FUNCTION decode_json(id bigint, preset text DEFAULT NULL,
                            layout text DEFAULT NULL, epoch text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'sfc_pg_decode_json'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION decode_json(bigint, text, text, text) IS
'The canonical JSON of the decoded ID, byte for byte as in every language';

CREATE FUNCTION decode_time(id bigint, preset text DEFAULT NULL,
                            layout text DEFAULT NULL, epoch text DEFAULT NULL)
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'sfc_pg_decode_time'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION decode_time(bigint, text, text, text) IS
'The start of the ID''s tick, to the microsecond';

CREATE FUNCTION field(id bigint, name text, preset text DEFAULT NULL,
                      layout text DEFAULT NULL, epoch text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'sfc_pg_field'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION field(bigint, text, text, text, text) IS
'One field of the ID by name; "time" gives the raw tick count';

CREATE FUNCTION encode(fields jsonb, preset text DEFAULT NULL,
                       layout text DEFAULT NULL, epoch text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'sfc_pg_encode'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION encode(jsonb, text, text, text) IS
'The ID of a time (exactly one of time_ms, time_us, time) and every other field';

CREATE FUNCTION range(t0 timestamptz, t1 timestamptz, preset text DEFAULT NULL,
                      layout text DEFAULT NULL, epoch text DEFAULT NULL,
                      OUT lo bigint, OUT hi bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'sfc_pg_range'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION range(timestamptz, timestamptz, text, text, text) IS
'The smallest and largest IDs of the window [t0, t1): WHERE id BETWEEN lo AND hi';

CREATE FUNCTION layout(preset text DEFAULT NULL, layout text DEFAULT NULL,
                       epoch text DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sfc_pg_layout'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION layout(text, text, text) IS
'What a layout is and can do: spec, epoch, fields with shifts and maxima, capacity, end of life';

-- Not STRICT: pad NULL (its default) is the encoding's default form; a NULL
-- ID or encoding still gives NULL.
CREATE FUNCTION format_id(id bigint, encoding text, pad boolean DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'sfc_pg_format_id'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION format_id(bigint, text, boolean) IS
'The ID as text in an encoding (dec, hex, base32, base36, base58, base62): by default dec the plain number and the others fixed width; pad => true the fixed width (dec''s 20 digits), pad => false the shortest form';

CREATE FUNCTION parse_id(text text, encoding text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'sfc_pg_parse_id'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION parse_id(text, text) IS
'The ID that text in an encoding stands for, fixed width or shortest';

-- UUIDv7s (RFC 9562), which need no layout: a uuid, or text in the
-- 8-4-4-4-12 form or as 32 hex digits, either case; another version or
-- variant is refused (22S02), the text quoted.

CREATE FUNCTION decode_uuid7(uuid uuid)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sfc_pg_decode_uuid7'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decode_uuid7(uuid) IS
'The decoded UUIDv7 as jsonb: uuid, version, time_ms, time, rand_a, rand_b';

CREATE FUNCTION decode_uuid7(text text)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sfc_pg_decode_uuid7'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decode_uuid7(text) IS
'The decoded UUIDv7 of the text as jsonb: uuid, version, time_ms, time, rand_a, rand_b';

CREATE FUNCTION decode_uuid7_json(uuid uuid)
RETURNS text
AS 'MODULE_PATHNAME', 'sfc_pg_decode_uuid7_json'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decode_uuid7_json(uuid) IS
'The canonical JSON of the decoded UUIDv7, byte for byte as in every language';

CREATE FUNCTION decode_uuid7_json(text text)
RETURNS text
AS 'MODULE_PATHNAME', 'sfc_pg_decode_uuid7_json'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decode_uuid7_json(text) IS
'The canonical JSON of the UUIDv7 of the text, byte for byte as in every language';

CREATE FUNCTION decode_uuid7_time(uuid uuid)
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'sfc_pg_decode_uuid7_time'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decode_uuid7_time(uuid) IS
'The UUIDv7''s time, to the millisecond';

CREATE FUNCTION decode_uuid7_time(text text)
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'sfc_pg_decode_uuid7_time'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decode_uuid7_time(text) IS
'The time of the UUIDv7 of the text, to the millisecond';

-- Generation: the server's one shared generator, configured by the
-- snowflake_c.* settings and shared_preload_libraries = 'snowflake_c'.
-- Parallel safe: parallel workers draw from the same shared generator.

CREATE FUNCTION next_id()
RETURNS bigint
AS 'MODULE_PATHNAME', 'sfc_pg_next_id'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION next_id() IS
'The next ID of the server''s generator: a column DEFAULT';

CREATE FUNCTION next_ids(n integer)
RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'sfc_pg_next_ids'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION next_ids(integer) IS
'n consecutive IDs of the server''s generator, increasing';

CREATE FUNCTION stats()
RETURNS jsonb
AS 'MODULE_PATHNAME', 'sfc_pg_stats'
LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION stats() IS
'The counters and settings of the server''s generator';
