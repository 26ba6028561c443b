/* snowflake-c — generate, decode and encode 64-bit time-ordered IDs.
 *
 * What the command's files share. Two tables describe the command: its
 * commands (`commands`, commands.c: name, usage, summary, description,
 * examples, the options and arguments each takes) and its options
 * (`own_options`, options.c, then the core's generator options,
 * sfc_option_at). The parser (args.c), each command's help (help.c), the
 * manual page (man.c), the shell completions (completions.c) and the "did
 * you mean" of a mistyped command or option all walk them. The options are
 * read by a parser of its own, the same on every platform and C library:
 * each option is spelled in full (never abbreviated), as --NAME VALUE,
 * --NAME=VALUE or, for the short ones, -n N and -nN; options and arguments
 * may come in any order, and `--` ends the options.
 *
 *   main.c         the first word: a command, --help or --version
 *   commands.c     the command rows
 *   options.c      the option rows, their spellings and docs
 *   args.c         the parser
 *   help.c         mistakes, "did you mean", the help, the help command
 *   man.c          the manual page
 *   completions.c  bash, zsh and fish, the completions command
 *   output.c       decoded IDs and JSON values
 *   gen.c, decode.c (decode, convert), encode.c, range.c, describe.c
 *                  (layout, presets), sql.c: the other commands
 *   serve.c        the ID service (service.h: its own files, built with
 *                  libmicrohttpd) */
#ifndef SNOWFLAKE_C_CLI_H
#define SNOWFLAKE_C_CLI_H

#include "snowflake_c.h"
#include "snowflake_c_kit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PROG "snowflake-c"
#define WIDTH 79 /* help text is wrapped to fit this many columns */

/* ===================================================================== */
/* The options (options.c)                                               */
/* ===================================================================== */

/* What a completion offers as an option's value. */
typedef enum value_kind {
  VALUE_ANY,      /* the user's own text */
  VALUE_PRESET,   /* a preset's name */
  VALUE_ENCODING, /* an encoding's name */
  VALUE_FROM,     /* an encoding's name, or uuid7 */
  VALUE_CHOICE,   /* one of a core option's choices */
  VALUE_DIR       /* a folder */
} value_kind;

/* The CLI's own options; the core's generator options follow them. */
typedef enum own_option {
  OPT_PRESET,
  OPT_LAYOUT,
  OPT_EPOCH,
  OPT_NODE,
  OPT_COUNT,
  OPT_TIME,
  OPT_JSON,
  OPT_FORMAT,
  OPT_FROM,
  OPT_TO,
  OPT_SHORTEST,
  OPT_FIXED,
  OPT_STATS,
  OPT_MONOTONIC,
  OPT_SCHEMA,
  OPT_LISTEN,
  OPT_MAX_COUNT,
  OPT_TOKEN,
  OPT_MAX_CONNECTIONS,
  OPT_IDLE_TIMEOUT,
  OPT_LEASE,
  OPT_MAN,
  OPT_HELP,
  OPT_OWN /* how many */
} own_option;

#define TAKES(o) (1u << (o))
#define TAKES_LAYOUT (TAKES(OPT_PRESET) | TAKES(OPT_LAYOUT) | TAKES(OPT_EPOCH))

/* What an option does to the command line's state (struct cli). */
typedef enum option_effect {
  SET_TEXT,     /* the value, as given, in the const char * at `at` */
  SET_FLAG,     /* true in the bool at `at` */
  SET_COUNT,    /* the value, a whole number 0..10^12, in the long long */
  SET_ENCODING, /* the encoding named, in the encoding_choice at `at` */
  SET_CORE,     /* `fixed` as the value of core option number `at` */
  SET_HELP      /* prints the command's help, and nothing else runs */
} option_effect;

typedef struct option_row {
  const char *name;
  char short_name;
  const char *arg; /* the value's placeholder; NULL: the option takes none */
  value_kind value;
  const char *doc; /* "{presets}", "{encodings}": the names, listed */
  option_effect effect;
  size_t at;         /* offsetof(cli, ...), or SET_CORE's option number */
  const char *fixed; /* SET_CORE's value */
} option_row;

extern const option_row own_options[OPT_OWN];

#define OPTION_MAX 32 /* room for the core's option table */
#define VIEW_MAX (OPT_OWN + 2 * OPTION_MAX)

/* One spelling of an option: the CLI's own, or a core option (a flag has
 * two, --NAME and --no-NAME). */
typedef struct option_view {
  int id;        /* own_option, or OPT_OWN + the core option's index */
  char name[48]; /* as typed, without "--": words joined by '-' */
  char short_name;
  const char *arg;
  value_kind value;
  const sfc_option_info *core; /* NULL: the CLI's own */
  bool negative;               /* --no-NAME */
  bool shown; /* in help, manual and completions: the spelling that changes
                 something (--no-guard, --random-start) */
} option_view;

/* Every spelling of every option, the CLI's own first. Returns how many. */
size_t option_views(option_view *out);

/* Appends to buf (cap bytes, NUL-terminated) what fits. */
void append(char *buf, size_t cap, const char *text);
void append_presets(char *buf, size_t cap);
void append_encodings(char *buf, size_t cap);

/* The whole doc of an option, in one line. */
void option_doc(const option_view *v, char *buf, size_t cap);
/* An option's doc cut short for a completion menu. */
void option_brief(const option_view *v, char *buf, size_t cap);
/* "-n, --count N", "--preset NAME", "--json". */
void option_synopsis(const option_view *v, char *buf, size_t cap);

/* ===================================================================== */
/* The commands (commands.c)                                             */
/* ===================================================================== */

/* An encoding option: given or not, and the encoding. */
typedef struct encoding_choice {
  bool set;
  bool uuid7; /* --from uuid7: UUIDv7s, not IDs (value unused) */
  sfc_encoding value;
} encoding_choice;

/* The command line, read. */
typedef struct cli {
  const char *preset, *spec, *epoch, *node, *time, *schema;
  const char *option[OPTION_MAX]; /* generator options as given, by index */
  long long count;
  const char *listen, *token; /* serve */
  const char *lease;          /* the lease database's URL */
  long long max_count, max_connections, idle_timeout; /* serve */
  bool json, stats, shortest, fixed, man;
  encoding_choice format, from, to;
  sfc_layout layout;
} cli;

/* What a command's arguments are, for the completions. */
typedef enum args_kind {
  ARGS_NONE,
  ARGS_IDS,     /* IDs, any number */
  ARGS_FIELDS,  /* FIELD=VALUE, any number */
  ARGS_TIMES,   /* T0 T1 */
  ARGS_COMMAND, /* a command's name */
  ARGS_SHELL    /* a shell's name */
} args_kind;

typedef struct command {
  const char *name;
  int (*run)(cli *c, int argc, char **argv); /* the arguments, options out */
  const char *usage;   /* what follows the name on the usage line */
  const char *summary; /* a few words */
  const char *about;   /* a paragraph */
  unsigned takes;      /* TAKES(own_option) of the options it takes */
  bool generator;      /* and the core's generator options */
  args_kind args;
  const char *examples[5];
} command;

extern const command commands[];
extern const size_t command_count;

extern const char *const shells[];
#define SHELL_COUNT 3

const command *find_command(const char *name);
bool takes(const command *cmd, const option_view *v);

int cmd_gen(cli *c, int argc, char **argv);
int cmd_serve(cli *c, int argc, char **argv);
int cmd_decode(cli *c, int argc, char **argv);
int cmd_convert(cli *c, int argc, char **argv);
int cmd_encode(cli *c, int argc, char **argv);
int cmd_range(cli *c, int argc, char **argv);
int cmd_layout(cli *c, int argc, char **argv);
int cmd_presets(cli *c, int argc, char **argv);
int cmd_sql(cli *c, int argc, char **argv);
int cmd_help(cli *c, int argc, char **argv);
int cmd_completions(cli *c, int argc, char **argv);
int cmd_lease(cli *c, int argc, char **argv);

/* The generator of gen and serve: the layout read, --node and the core's
 * options of the command line, created, and its warning on standard error.
 * Returns 0, else the exit status of the mistake (said on standard
 * error). */
int make_generator(cli *c, const command *cmd, sfc_generator **out);
/* Frees a generator of make_generator: a leased value is given back. */
void generator_free(sfc_generator *g);

/* ===================================================================== */
/* Leases (lease.c, through libpq)                                       */
/* ===================================================================== */

/* Whether a node field is given as "lease" (--node or SNOWFLAKE_<FIELD>). */
bool wants_lease(const cli *c, const sfc_options *opts);
/* The generator on a leased value: acquired, renewed on a thread of its
 * own until generator_free. 0, else the exit status (said). */
int lease_generator(cli *c, const command *cmd, const sfc_options *opts,
                    sfc_generator **out);
/* False while a lease is held no longer (for /readyz); true with none. */
bool lease_ready(void);
/* The lease's stats on standard error, if there is one. */
void lease_print_stats(bool json);
/* The lease's stats: false when there is none. */
bool lease_stats(sfc_lease_stats *out);

/* ===================================================================== */
/* Reading the command line (args.c)                                     */
/* ===================================================================== */

enum { HELP_SHOWN = -1 };

/* Reads argv[0..argc), what follows the command: its options into c, the
 * rest, in order, into args (*nargs of them). Returns 0, HELP_SHOWN, or the
 * exit status of a mistake. */
int parse_options(const command *cmd, int argc, char **argv, cli *c,
                  char **args, int *nargs);

/* A time given as Unix ms or ISO-8601 UTC. Returns 0, else 1 with err. */
int parse_time(const char *text, int64_t *ms, sfc_error *err);

/* ===================================================================== */
/* Errors, "did you mean", help (help.c), manual (man.c)                 */
/* ===================================================================== */

/* An error of the core: its kind and message, exit status 1. */
int fail(const sfc_error *err);
/* A mistake in the command line: the message, where to read more, and exit
 * status 2. */
int usage_error(const command *cmd, const char *format, ...);
int unknown_command(const char *name);

void print_overview(FILE *out);
void print_command_help(FILE *out, const command *cmd);
void print_man(FILE *out);

/* ===================================================================== */
/* Output (output.c)                                                     */
/* ===================================================================== */

/* The digits of v, written backwards ending at `end`: returns the first. */
char *u64_to_text(uint64_t v, char *end);
/* One decoded ID: a line of text, or its canonical JSON. */
void print_parts(const sfc_layout *l, const sfc_parts *p, bool json);

#endif
