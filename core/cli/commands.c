/* The commands as rows: name, usage, summary, description, the options and
 * arguments each takes, examples. */
#include "cli.h"

#include <string.h>

const command commands[] = {
    {"gen",
     cmd_gen,
     "[OPTIONS]",
     "generate IDs",
     "Generates IDs of one layout for one node value, one per line: in "
     "decimal, in another string form with --format, or as the canonical "
     "JSON of decode with --json. Every node field of the layout needs a "
     "value, from --node or else from SNOWFLAKE_<FIELD>: without one the "
     "generator refuses to start. The node value is claimed host-wide while "
     "the command runs, so that a second generator of the same value "
     "refuses to start (--no-guard turns that off).",
     TAKES_LAYOUT | TAKES(OPT_NODE) | TAKES(OPT_COUNT) | TAKES(OPT_JSON) |
         TAKES(OPT_FORMAT) | TAKES(OPT_SHORTEST) | TAKES(OPT_FIXED) |
         TAKES(OPT_STATS) | TAKES(OPT_MONOTONIC) | TAKES(OPT_LEASE),
     true,
     ARGS_NONE,
     {"snowflake-c gen -n 5 --preset twitter --node datacenter=1,worker=3",
      "snowflake-c gen -n 2 --format base32 --preset twitter --node "
      "datacenter=1,worker=3",
      "snowflake-c gen --json --stats --layout time:41@1ms,worker:10,seq:12 "
      "--epoch 2024-01-01 --node worker=7",
      NULL}},
    {"serve",
     cmd_serve,
     "[OPTIONS]",
     "serve IDs over HTTP",
     "Serves the IDs of one layout for one node value over HTTP/1.1 until "
     "SIGTERM or SIGINT, which drain the requests in flight: GET /v1/id, "
     "/v1/ids?count=N[&format=ENC], /v1/decode/ID[?from=ENC|uuid7], "
     "/v1/layout, "
     "/healthz, /readyz and /metrics (Prometheus). Text by default, JSON "
     "with Accept: application/json; errors are "
     "{\"error\":{\"kind\":\"KIND\",\"message\":\"TEXT\"}}. The node "
     "value is taken as gen takes it: one instance per node value. It "
     "prints the address it serves on, on standard error.",
     TAKES_LAYOUT | TAKES(OPT_NODE) | TAKES(OPT_MONOTONIC) | TAKES(OPT_LISTEN) |
         TAKES(OPT_MAX_COUNT) | TAKES(OPT_TOKEN) | TAKES(OPT_MAX_CONNECTIONS) |
         TAKES(OPT_IDLE_TIMEOUT) | TAKES(OPT_LEASE),
     true,
     ARGS_NONE,
     {"snowflake-c serve --preset twitter --node datacenter=1,worker=3",
      "snowflake-c serve --listen [::1]:9000 --node worker=auto --state-dir "
      "/var/lib/snowflake-c",
      NULL}},
    {"decode",
     cmd_decode,
     "[OPTIONS] [ID...]",
     "split IDs into their time and fields",
     "Splits each ID into its time and fields, one line per ID: the ID, its "
     "time (ISO-8601 UTC) and FIELD=VALUE of each other field, or with "
     "--json the canonical JSON, byte for byte what every binding prints. "
     "The IDs come from the arguments or, separated by blanks, from "
     "standard input; in decimal unless --from names their encoding. With "
     "--from uuid7 they are UUIDv7s: each line is the UUID, its time and "
     "rand_a=N rand_b=N, or its canonical JSON, and no layout is needed.",
     TAKES_LAYOUT | TAKES(OPT_JSON) | TAKES(OPT_FROM),
     false,
     ARGS_IDS,
     {"snowflake-c decode --preset discord --json 175928847299117063",
      "snowflake-c decode --preset discord --from base62 0Czks0tP37X",
      "snowflake-c decode --from uuid7 017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
      NULL}},
    {"convert",
     cmd_convert,
     "[OPTIONS] [ID...]",
     "convert IDs between string forms",
     "Prints each ID in another string form: read in the encoding of --from "
     "(default: dec), printed in that of --to (default: dec): dec as the "
     "plain number, the others fixed width; --shortest drops the padding, "
     "--fixed pads any encoding (dec to 20 digits). The IDs come from the "
     "arguments or, separated by blanks, from standard input. With --json, "
     "one object per ID: {\"id\":\"ID\",\"ENC\":\"TEXT\"}.",
     TAKES(OPT_JSON) | TAKES(OPT_FROM) | TAKES(OPT_TO) | TAKES(OPT_SHORTEST) |
         TAKES(OPT_FIXED),
     false,
     ARGS_IDS,
     {"snowflake-c convert --to base62 175928847299117063",
      "snowflake-c convert --to base62 --shortest 175928847299117063",
      "snowflake-c convert --to dec --fixed 175928847299117063",
      "snowflake-c convert --from base32 --to hex 04w86bb0g4007", NULL}},
    {"encode",
     cmd_encode,
     "--time T [OPTIONS] FIELD=VALUE...",
     "build an ID from its time and fields",
     "Builds the ID of a time (--time, rounded down to the layout's tick) "
     "and a value for every other field of the layout, each given once as "
     "FIELD=VALUE. With --json, prints the ID's canonical JSON instead.",
     TAKES_LAYOUT | TAKES(OPT_TIME) | TAKES(OPT_JSON),
     false,
     ARGS_FIELDS,
     {"snowflake-c encode --preset discord --time 2016-04-30T11:18:25.796Z "
      "worker=1 process=0 seq=7",
      "snowflake-c encode --preset discord --json --time 1462015105796 "
      "worker=1 process=0 seq=7",
      NULL}},
    {"range",
     cmd_range,
     "[OPTIONS] T0 T1",
     "the smallest and largest ID of a time interval",
     "Prints the smallest and the largest ID whose time lies in [T0, T1): "
     "T0 included, T1 not, so that consecutive windows never share an ID. "
     "For range scans and pagination (WHERE id BETWEEN min AND max). The "
     "times are Unix ms or ISO-8601 UTC. With --json: "
     "{\"min\":\"ID\",\"max\":\"ID\"}.",
     TAKES_LAYOUT | TAKES(OPT_JSON),
     false,
     ARGS_TIMES,
     {"snowflake-c range --preset twitter 2024-01-01 2024-01-02",
      "snowflake-c range --preset twitter --json 2024-01-01T00:00:00Z "
      "2024-01-01T01:00:00Z",
      NULL}},
    {"layout",
     cmd_layout,
     "[OPTIONS]",
     "describe a layout",
     "Describes a layout: its spec, epoch and width; each field's kind, "
     "bits, shift and largest value; the IDs per second of one node value, "
     "how many node values it has and when its time field runs out. With "
     "--json, the layout's facts as one object.",
     TAKES_LAYOUT | TAKES(OPT_JSON),
     false,
     ARGS_NONE,
     {"snowflake-c layout --preset sonyflake",
      "snowflake-c layout --layout time:41@1ms,worker:10,seq:12 --epoch "
      "2024-01-01 --json",
      NULL}},
    {"presets",
     cmd_presets,
     "[--json]",
     "list the presets",
     "Lists the presets: name, spec, epoch (Unix ms) and the day their IDs "
     "run out. With --json, one object per preset and line: "
     "{\"name\":\"NAME\",\"spec\":\"SPEC\",\"epoch_ms\":N,"
     "\"time_end_ms\":N}.",
     TAKES(OPT_JSON),
     false,
     ARGS_NONE,
     {"snowflake-c presets", "snowflake-c presets --json", NULL}},
    {"sql",
     cmd_sql,
     "[OPTIONS]",
     "plain SQL functions of a layout, for a hosted PostgreSQL",
     "Prints plain SQL (LANGUAGE sql, IMMUTABLE, PARALLEL SAFE) that makes, "
     "in schema --schema, the functions of one layout for a PostgreSQL that "
     "loads no C extension (RDS, Cloud SQL, Supabase): decode(id) (jsonb), "
     "decode_json(id) (the canonical JSON text, byte for byte), "
     "decode_time(id) "
     "(timestamptz), time_ms(id), field(id, name), is_id(id) and range(t0, "
     "t1), the smallest and largest ID of [t0, t1) as one row (lo, hi), "
     "none when the interval holds no ID. IDs are bigint: a bigint that is "
     "no ID of the layout decodes to NULL. The IDs of a 64-bit layout "
     "(discord, instagram) fit a bigint until the time their top bit is "
     "first set, which a warning names; range gives none past it.",
     TAKES_LAYOUT | TAKES(OPT_SCHEMA),
     false,
     ARGS_NONE,
     {"snowflake-c sql --preset twitter | psql",
      "snowflake-c sql --preset sonyflake --schema sonyflake",
      "snowflake-c sql --layout time:41@1ms,worker:10,seq:12 --epoch "
      "2024-01-01",
      NULL}},
    {"lease",
     cmd_lease,
     "init [URL] | sql",
     "the table of leased node values, in PostgreSQL",
     "lease init creates the table snowflake_c_leases, if missing, in the "
     "PostgreSQL of URL (else --lease, else SNOWFLAKE_LEASE_URL); lease sql "
     "prints its SQL, for a migration. gen and serve take a node value "
     "'lease' from it (--node worker=lease --lease URL): one row per ID "
     "space and node value, held for --lease-duration by the database's "
     "clock and renewed at a third of it; no ID is issued once a lease may "
     "have expired (LeaseExpired, until a renewal succeeds), and a value "
     "taken over starts after the horizon its last holder wrote. A role "
     "with table privileges is enough.",
     TAKES(OPT_LEASE),
     false,
     ARGS_NONE,
     {"snowflake-c lease init postgresql://app@db/app",
      "snowflake-c lease sql > migrations/0007_snowflake_c_leases.sql",
      "snowflake-c gen -n 3 --node worker=lease --lease "
      "postgresql://app@db/app",
      NULL}},
    {"help",
     cmd_help,
     "[COMMAND | --man]",
     "show a command's usage, options and examples",
     "Prints the usage, options and examples of COMMAND (the same as "
     "snowflake-c COMMAND --help), without one the list of commands, and "
     "with --man the manual page (roff), which man -l - reads.",
     TAKES(OPT_MAN),
     false,
     ARGS_COMMAND,
     {"snowflake-c help gen", "snowflake-c help --man | man -l -", NULL}},
    {"completions",
     cmd_completions,
     "SHELL",
     "print a completion script for bash, zsh or fish",
     "Prints the completion script of SHELL (bash, zsh or fish): it "
     "completes the commands, their options, and the values of --preset, "
     "of the encodings and of the generator options that are a choice. An "
     "installed snowflake-c has them where each shell looks; to load one "
     "by hand: source <(snowflake-c completions bash), or snowflake-c "
     "completions fish | source.",
     0,
     false,
     ARGS_SHELL,
     {"source <(snowflake-c completions bash)",
      "snowflake-c completions zsh > ~/.zfunc/_snowflake-c", NULL}},
};

const size_t command_count = sizeof commands / sizeof commands[0];

const char *const shells[SHELL_COUNT] = {"bash", "zsh", "fish"};

bool takes(const command *cmd, const option_view *v) {
  if (v->core) return cmd->generator;
  return v->id == OPT_HELP || (cmd->takes & TAKES(v->id)) != 0;
}

const command *find_command(const char *name) {
  for (size_t i = 0; i < command_count; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}
