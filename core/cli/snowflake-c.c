/* snowflake-c — generate, decode and encode 64-bit time-ordered IDs.
 *
 * Two tables describe the command: its commands (`commands`: name, usage,
 * summary, description, examples, the options each takes) and its options
 * (`own_options`, then the core's generator options, sfc_option_at). The
 * parser, each command's help, the manual page (help --man), the shell
 * completions (completions bash|zsh|fish) and the "did you mean" of a
 * mistyped command or option all walk them. The options are read by a
 * parser of its own, the same on every platform and C library: each option
 * is spelled in full (never abbreviated), as --NAME VALUE, --NAME=VALUE or,
 * for the short ones, -n N and -nN; options and arguments may come in any
 * order, and `--` ends the options. */
#include "snowflake_c.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

#define PROG "snowflake-c"
#define WIDTH 79 /* help text is wrapped to fit this many columns */

/* ===================================================================== */
/* The options                                                           */
/* ===================================================================== */

/* What a completion offers as an option's value. */
typedef enum value_kind {
  VALUE_ANY,      /* the user's own text */
  VALUE_PRESET,   /* a preset's name */
  VALUE_ENCODING, /* an encoding's name */
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
  OPT_STATS,
  OPT_MONOTONIC,
  OPT_MAN,
  OPT_HELP,
  OPT_OWN /* how many */
} own_option;

#define TAKES(o) (1u << (o))
#define TAKES_LAYOUT (TAKES(OPT_PRESET) | TAKES(OPT_LAYOUT) | TAKES(OPT_EPOCH))

typedef struct option_row {
  const char *name;
  char short_name;
  const char *arg; /* the value's placeholder; NULL: the option takes none */
  value_kind value;
  const char *doc; /* "{presets}", "{encodings}": the names, listed */
} option_row;

static const option_row own_options[OPT_OWN] = {
    [OPT_PRESET] = {"preset", 0, "NAME", VALUE_PRESET,
                    "the layout of a preset: {presets} (default: default)"},
    [OPT_LAYOUT] = {"layout", 0, "SPEC", VALUE_ANY,
                    "a layout of your own, its fields most significant "
                    "first: time:41@1ms,worker:10,seq:12 (with --epoch)"},
    [OPT_EPOCH] = {"epoch", 0, "E", VALUE_ANY,
                   "the epoch of --layout: Unix ms or ISO-8601 UTC "
                   "(2024-01-01, 2024-01-01T00:00:00Z)"},
    [OPT_NODE] = {"node", 0, "LIST", VALUE_ANY,
                  "node values, FIELD=VALUE,...: a number, auto (the first "
                  "free value of a pool, with --state-dir), host (the "
                  "ordinal at the end of the host name) or env:NAME (the "
                  "environment variable NAME); a field not given is read "
                  "from SNOWFLAKE_<FIELD>"},
    [OPT_COUNT] = {"count", 'n', "N", VALUE_ANY,
                   "how many IDs to generate (default: 1)"},
    [OPT_TIME] = {"time", 0, "T", VALUE_ANY,
                  "the ID's time: Unix ms or ISO-8601 UTC"},
    [OPT_JSON] = {"json", 0, NULL, VALUE_ANY,
                  "print JSON: IDs as decimal strings, every other number "
                  "as a JSON number"},
    [OPT_FORMAT] = {"format", 0, "ENC", VALUE_ENCODING,
                    "print the IDs in ENC: {encodings}; fixed width, so that "
                    "they sort as the IDs do"},
    [OPT_FROM] = {"from", 0, "ENC", VALUE_ENCODING,
                  "the encoding of the IDs given: {encodings} (default: "
                  "dec)"},
    [OPT_TO] = {"to", 0, "ENC", VALUE_ENCODING,
                "the encoding to print: {encodings}, fixed width (default: "
                "the plain decimal number)"},
    [OPT_SHORTEST] = {"shortest", 0, NULL, VALUE_ANY,
                      "with --format or --to: no left padding"},
    [OPT_STATS] = {"stats", 0, NULL, VALUE_ANY,
                   "print the generator's counters to standard error when "
                   "done: one line of NAME=VALUE, or one JSON object with "
                   "--json"},
    [OPT_MONOTONIC] = {"monotonic", 0, NULL, VALUE_ANY,
                       "the same as --time-source monotonic"},
    [OPT_MAN] = {"man", 0, NULL, VALUE_ANY,
                 "print the manual page (roff): snowflake-c help --man | "
                 "man -l -"},
    [OPT_HELP] = {"help", 'h', NULL, VALUE_ANY,
                  "print the command's usage, options and examples"},
};

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
static size_t option_views(option_view *out) {
  size_t n = 0;
  for (int i = 0; i < OPT_OWN; i++) {
    const option_row *r = &own_options[i];
    option_view *v = &out[n++];
    memset(v, 0, sizeof *v);
    v->id = i;
    snprintf(v->name, sizeof v->name, "%s", r->name);
    v->short_name = r->short_name;
    v->arg = r->arg;
    v->value = r->value;
    v->shown = true;
  }
  const sfc_option_info *o;
  for (size_t i = 0; i < OPTION_MAX && (o = sfc_option_at(i)); i++) {
    bool flag = o->type == SFC_TYPE_BOOL;
    bool on = flag && strcmp(o->default_text, "true") == 0;
    for (int no = 0; no <= (int)flag; no++) {
      option_view *v = &out[n++];
      memset(v, 0, sizeof *v);
      v->id = OPT_OWN + (int)i;
      snprintf(v->name, sizeof v->name, "%s%s", no ? "no-" : "", o->name);
      for (char *p = v->name; *p; p++)
        if (*p == '_') *p = '-';
      v->arg = o->type == SFC_TYPE_DURATION ? "MS"
               : o->type == SFC_TYPE_PATH   ? "DIR"
               : o->type == SFC_TYPE_CHOICE ? "NAME"
                                            : NULL;
      v->value = o->type == SFC_TYPE_PATH     ? VALUE_DIR
                 : o->type == SFC_TYPE_CHOICE ? VALUE_CHOICE
                                              : VALUE_ANY;
      v->core = o;
      v->negative = no;
      v->shown = !flag || no == on;
    }
  }
  return n;
}

/* ===================================================================== */
/* The commands                                                          */
/* ===================================================================== */

typedef struct cli {
  const char *preset, *spec, *epoch, *node, *time;
  const char *option[OPTION_MAX]; /* generator options as given, by index */
  long long count;
  bool json, stats, shortest, man;
  /* --format, --from, --to: given or not, and the encoding */
  bool format_set, from_set, to_set;
  sfc_encoding format, from, to;
  sfc_layout layout;
} cli;

typedef struct command {
  const char *name;
  int (*run)(cli *c, int argc, char **argv); /* the arguments, options out */
  const char *usage;   /* what follows the name on the usage line */
  const char *summary; /* a few words */
  const char *about;   /* a paragraph */
  unsigned takes;      /* TAKES(own_option) of the options it takes */
  bool generator;      /* and the core's generator options */
  const char *examples[4];
} command;

static int cmd_gen(cli *c, int argc, char **argv);
static int cmd_decode(cli *c, int argc, char **argv);
static int cmd_convert(cli *c, int argc, char **argv);
static int cmd_encode(cli *c, int argc, char **argv);
static int cmd_range(cli *c, int argc, char **argv);
static int cmd_layout(cli *c, int argc, char **argv);
static int cmd_presets(cli *c, int argc, char **argv);
static int cmd_help(cli *c, int argc, char **argv);
static int cmd_completions(cli *c, int argc, char **argv);

static const command commands[] = {
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
         TAKES(OPT_FORMAT) | TAKES(OPT_SHORTEST) | TAKES(OPT_STATS) |
         TAKES(OPT_MONOTONIC),
     true,
     {"snowflake-c gen -n 5 --preset twitter --node datacenter=1,worker=3",
      "snowflake-c gen -n 2 --format base32 --preset twitter --node "
      "datacenter=1,worker=3",
      "snowflake-c gen --json --stats --layout time:41@1ms,worker:10,seq:12 "
      "--epoch 2024-01-01 --node worker=7",
      NULL}},
    {"decode",
     cmd_decode,
     "[OPTIONS] [ID...]",
     "split IDs into their time and fields",
     "Splits each ID into its time and fields, one line per ID: the ID, its "
     "time (ISO-8601 UTC) and FIELD=VALUE of each other field, or with "
     "--json the canonical JSON, byte for byte what every binding prints. "
     "The IDs come from the arguments or, separated by blanks, from "
     "standard input; in decimal unless --from names their encoding.",
     TAKES_LAYOUT | TAKES(OPT_JSON) | TAKES(OPT_FROM),
     false,
     {"snowflake-c decode --preset discord --json 175928847299117063",
      "snowflake-c decode --preset discord --from base62 0Czks0tP37X", NULL}},
    {"convert",
     cmd_convert,
     "[OPTIONS] [ID...]",
     "convert IDs between string forms",
     "Prints each ID in another string form: read in the encoding of --from "
     "(default: dec), printed in that of --to (default: the plain decimal "
     "number), fixed width unless --shortest. The IDs come from the "
     "arguments or, separated by blanks, from standard input. With --json, "
     "one object per ID: {\"id\":\"ID\",\"ENC\":\"TEXT\"}.",
     TAKES(OPT_JSON) | TAKES(OPT_FROM) | TAKES(OPT_TO) | TAKES(OPT_SHORTEST),
     false,
     {"snowflake-c convert --to base62 175928847299117063",
      "snowflake-c convert --to base62 --shortest 175928847299117063",
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
     {"snowflake-c layout --preset sonyflake",
      "snowflake-c layout --layout time:41@1ms,worker:10,seq:12 --epoch "
      "2024-01-01 --json",
      NULL}},
    {"presets",
     cmd_presets,
     "[--json]",
     "list the presets",
     "Lists the presets: name, spec and epoch (Unix ms). With --json, one "
     "object per preset and line: "
     "{\"name\":\"NAME\",\"spec\":\"SPEC\",\"epoch_ms\":N}.",
     TAKES(OPT_JSON),
     false,
     {"snowflake-c presets", "snowflake-c presets --json", NULL}},
    {"help",
     cmd_help,
     "[COMMAND | --man]",
     "show a command's usage, options and examples",
     "Prints the usage, options and examples of COMMAND (the same as "
     "snowflake-c COMMAND --help), without one the list of commands, and "
     "with --man the manual page (roff), which man -l - reads.",
     TAKES(OPT_MAN),
     false,
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
     {"source <(snowflake-c completions bash)",
      "snowflake-c completions zsh > ~/.zfunc/_snowflake-c", NULL}},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static const char *const shells[] = {"bash", "zsh", "fish"};

static bool takes(const command *cmd, const option_view *v) {
  if (v->core) return cmd->generator;
  return v->id == OPT_HELP || (cmd->takes & TAKES(v->id)) != 0;
}

/* ===================================================================== */
/* Errors and "did you mean"                                             */
/* ===================================================================== */

static int fail(const sfc_error *err) {
  fprintf(stderr, PROG ": %s: %s\n", sfc_status_name(err->status),
          err->message);
  return 1;
}

/* A mistake in the command line: the message, where to read more, and exit
 * status 2. */
static int usage_error(const command *cmd, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fputs(PROG ": ", stderr);
  vfprintf(stderr, format, ap);
  va_end(ap);
  if (cmd)
    fprintf(stderr, "\n(see " PROG " help %s)\n", cmd->name);
  else
    fputs("\n(see " PROG " --help)\n", stderr);
  return 2;
}

/* The optimal string alignment distance: insertions, deletions,
 * substitutions and swaps of two neighbours. SIZE_MAX for text too long to
 * be a mistyped name. */
static size_t distance(const char *a, size_t n, const char *b) {
  enum { LONGEST = 48 };
  size_t m = strlen(b);
  if (n >= LONGEST || m >= LONGEST) return SIZE_MAX;
  size_t d[LONGEST][LONGEST];
  for (size_t i = 0; i <= n; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= m; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

/* ": did you mean 'gen'?" — the names that `typed` (n bytes) begins, else
 * the nearest within a few edits (fewer for short words), at most three;
 * "" when none is near. Each name is written `quote` + `dashes` + name +
 * `quote`. */
static void suggest(const char *typed, size_t n, const char *const *names,
                    size_t count, const char *dashes, const char *quote,
                    char *out, size_t cap) {
  enum { MOST = 3 };
  const char *picked[MOST];
  size_t np = 0;
  out[0] = '\0';
  if (n == 0) return;
  for (size_t i = 0; i < count && np < MOST; i++)
    if (strlen(names[i]) > n && strncmp(typed, names[i], n) == 0)
      picked[np++] = names[i];
  if (np == 0) {
    size_t limit = n <= 3 ? 1 : n <= 6 ? 2 : 3, best = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
      size_t d = distance(typed, n, names[i]);
      if (d <= limit && d < best) best = d;
    }
    for (size_t i = 0; i < count && np < MOST && best != SIZE_MAX; i++)
      if (distance(typed, n, names[i]) == best) picked[np++] = names[i];
  }
  if (np == 0) return;
  size_t w = (size_t)snprintf(out, cap, ": did you mean ");
  for (size_t i = 0; i < np && w < cap; i++)
    w += (size_t)snprintf(out + w, cap - w, "%s%s%s%s%s",
                          i == 0        ? ""
                          : i + 1 == np ? " or "
                                        : ", ",
                          quote, dashes, picked[i], quote);
  if (w < cap) snprintf(out + w, cap - w, "?");
}

static const command *find_command(const char *name) {
  for (size_t i = 0; i < COMMAND_COUNT; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

static int unknown_command(const char *name) {
  const char *names[COMMAND_COUNT];
  for (size_t i = 0; i < COMMAND_COUNT; i++)
    names[i] = commands[i].name;
  char hint[200];
  suggest(name, strlen(name), names, COMMAND_COUNT, "", "'", hint, sizeof hint);
  return usage_error(NULL, "unknown command '%s'%s", name, hint);
}

/* ===================================================================== */
/* Text: option docs, wrapping                                           */
/* ===================================================================== */

/* Appends to buf (cap bytes, NUL-terminated) what fits. */
static void append(char *buf, size_t cap, const char *text) {
  size_t n = strlen(buf);
  if (n + 1 < cap) snprintf(buf + n, cap - n, "%s", text);
}

static void append_presets(char *buf, size_t cap) {
  for (size_t i = 0; i < sfc_preset_count(); i++) {
    const char *name, *spec;
    int64_t epoch;
    sfc_preset_at(i, &name, &spec, &epoch);
    if (i) append(buf, cap, ", ");
    append(buf, cap, name);
  }
}

static void append_encodings(char *buf, size_t cap) {
  for (int i = 0; i < SFC_ENCODING_COUNT; i++) {
    if (i) append(buf, cap, ", ");
    append(buf, cap, sfc_encoding_name((sfc_encoding)i));
  }
}

/* The whole doc of an option, in one line. */
static void option_doc(const option_view *v, char *buf, size_t cap) {
  buf[0] = '\0';
  if (!v->core) {
    for (const char *p = own_options[v->id].doc; *p;) {
      if (strncmp(p, "{presets}", 9) == 0) {
        append_presets(buf, cap);
        p += 9;
      } else if (strncmp(p, "{encodings}", 11) == 0) {
        append_encodings(buf, cap);
        p += 11;
      } else {
        char one[2] = {*p++, '\0'};
        append(buf, cap, one);
      }
    }
    return;
  }
  const sfc_option_info *o = v->core;
  if (o->type == SFC_TYPE_BOOL) {
    /* the spelling shown is the one that changes the default */
    append(buf, cap, v->negative ? "turn off what is on by default: " : "");
    append(buf, cap, o->doc);
    append(buf, cap, v->negative ? "" : " (off by default)");
    return;
  }
  append(buf, cap, o->doc);
  append(buf, cap, " (");
  if (o->type == SFC_TYPE_CHOICE) {
    append(buf, cap, "NAME: ");
    for (int k = 0; o->choices[k]; k++) {
      if (k) append(buf, cap, ", ");
      append(buf, cap, o->choices[k]);
    }
    append(buf, cap, "; ");
  }
  append(buf, cap, "default: ");
  append(buf, cap, o->default_text);
  append(buf, cap, ")");
}

/* An option's doc cut short for a completion menu: up to its first "; " or
 * " ("; when that is still longer than BRIEF, up to its last ": " within
 * BRIEF, else to a word's end within it. */
static void option_brief(const option_view *v, char *buf, size_t cap) {
  enum { BRIEF = 72 };
  char doc[600];
  option_doc(v, doc, sizeof doc);
  size_t n = strlen(doc);
  const char *semi = strstr(doc, "; "), *paren = strstr(doc, " (");
  if (semi && (size_t)(semi - doc) < n) n = (size_t)(semi - doc);
  if (paren && (size_t)(paren - doc) < n) n = (size_t)(paren - doc);
  if (n > BRIEF) {
    size_t colon = 0;
    for (size_t i = 0; i + 1 < BRIEF; i++)
      if (doc[i] == ':' && doc[i + 1] == ' ') colon = i;
    for (n = colon ? colon : BRIEF; !colon && n > 0 && doc[n] != ' ';)
      n--;
  }
  snprintf(buf, cap, "%.*s", (int)n, doc);
}

/* "-n, --count N", "--preset NAME", "--json". */
static void option_synopsis(const option_view *v, char *buf, size_t cap) {
  char dashes[4] = "";
  if (v->short_name) snprintf(dashes, sizeof dashes, "-%c", v->short_name);
  snprintf(buf, cap, "%s%s--%s%s%s", dashes, v->short_name ? ", " : "", v->name,
           v->arg ? " " : "", v->arg ? v->arg : "");
}

/* Writes `text` as lines of at most WIDTH columns, each indented by
 * `indent` spaces. */
static void wrap(FILE *out, const char *text, int indent) {
  int col = 0;
  while (*text) {
    while (*text == ' ')
      text++;
    size_t n = strcspn(text, " ");
    if (n == 0) break;
    if (col > indent && col + 1 + (int)n > WIDTH) {
      fputc('\n', out);
      col = 0;
    }
    if (col == 0) {
      fprintf(out, "%*s", indent, "");
      col = indent;
    } else {
      fputc(' ', out);
      col++;
    }
    fwrite(text, 1, n, out);
    col += (int)n;
    text += n;
  }
  if (col) fputc('\n', out);
}

/* ===================================================================== */
/* Help                                                                  */
/* ===================================================================== */

static void print_overview(FILE *out) {
  fputs("usage: " PROG " COMMAND [OPTIONS] [ARGS]\n\n", out);
  wrap(out,
       "Generates, decodes and encodes 64-bit, time-ordered IDs of the "
       "Snowflake family.",
       0);
  fputs("\ncommands:\n", out);
  for (size_t i = 0; i < COMMAND_COUNT; i++)
    fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
  fputs("\noptions:\n"
        "  -h, --help     print this list of commands\n"
        "  -V, --version  print the version\n\n",
        out);
  wrap(out,
       "'" PROG " help COMMAND' (or '" PROG
       " COMMAND --help') shows a command's options and examples; 'man " PROG
       "' or '" PROG " help --man' the whole manual.",
       0);
}

static void print_command_help(FILE *out, const command *cmd) {
  fprintf(out, "usage: " PROG " %s %s\n\n", cmd->name, cmd->usage);
  wrap(out, cmd->about, 0);
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  char synopsis[96], doc[600];
  for (int core = 0; core <= 1; core++) {
    if (core && !cmd->generator) break;
    fputs(core ? "\ngenerator options (durations in ms, or with a unit: "
                 "1.5s, 800us):\n"
               : "\noptions:\n",
          out);
    for (size_t i = 0; i < n; i++) {
      const option_view *v = &views[i];
      if (!v->shown || !takes(cmd, v) || (v->core != NULL) != core) continue;
      option_synopsis(v, synopsis, sizeof synopsis);
      option_doc(v, doc, sizeof doc);
      fprintf(out, "  %s\n", synopsis);
      wrap(out, doc, 6);
    }
  }
  fputs("\nexamples:\n", out);
  for (int i = 0; cmd->examples[i]; i++)
    fprintf(out, "  %s\n", cmd->examples[i]);
}

/* ===================================================================== */
/* The manual page                                                       */
/* ===================================================================== */

/* Text for roff: '-' as \-, '\' as \e, and a leading '.' or '\'' kept from
 * being read as a request. */
static void roff(FILE *out, const char *text) {
  if (*text == '.' || *text == '\'') fputs("\\&", out);
  for (; *text; text++) {
    if (*text == '-')
      fputs("\\-", out);
    else if (*text == '\\')
      fputs("\\e", out);
    else
      fputc(*text, out);
  }
}

/* \fB-n\fR, \fB--count\fR: an option's names in bold (`both`: the short
 * one too). */
static void roff_option_name(FILE *out, const option_view *v, bool both) {
  if (both && v->short_name) fprintf(out, "\\fB\\-%c\\fR, ", v->short_name);
  fputs("\\fB\\-\\-", out);
  roff(out, v->name);
  fputs("\\fR", out);
}

static void roff_examples(FILE *out, const char *const *examples) {
  fputs(".PP\nExamples:\n.PP\n.RS 4\n.nf\n", out);
  for (int i = 0; examples[i]; i++) {
    roff(out, examples[i]);
    fputc('\n', out);
  }
  fputs(".fi\n.RE\n", out);
}

static void print_man(FILE *out) {
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  char doc[600];
  fputs(".\\\" The manual of snowflake-c: written by `snowflake-c help --man`, "
        "from the\n"
        ".\\\" command's own tables (core/cli/snowflake-c.c). Do not edit.\n"
        ".TH SNOWFLAKE\\-C 1 \"\" \"snowflake\\-c\" \"User Commands\"\n"
        ".SH NAME\n"
        "snowflake\\-c \\- generate, decode and encode 64\\-bit, "
        "time\\-ordered IDs\n"
        ".SH SYNOPSIS\n.nf\n",
        out);
  for (size_t i = 0; i < COMMAND_COUNT; i++) {
    fprintf(out, "\\fBsnowflake\\-c %s\\fR ", commands[i].name);
    roff(out, commands[i].usage);
    fputc('\n', out);
  }
  fputs("\\fBsnowflake\\-c \\-\\-help\\fR\n"
        "\\fBsnowflake\\-c \\-\\-version\\fR\n"
        ".fi\n"
        ".SH DESCRIPTION\n"
        "\\fBsnowflake\\-c\\fR generates 64\\-bit, time\\-ordered, unique "
        "IDs of the Snowflake family (Twitter, Discord, Sonyflake, Baidu, "
        "Instagram or a layout of your own), decodes any ID back into its "
        "time and fields, encodes one from them, converts IDs between "
        "string forms and gives the IDs of a time interval.\n"
        ".PP\n"
        "A layout is a preset (\\fB\\-\\-preset\\fR) or a spec and an "
        "epoch (\\fB\\-\\-layout\\fR and \\fB\\-\\-epoch\\fR); without "
        "either, the default preset. Options are spelled in full, never "
        "abbreviated: \\fB\\-\\-NAME VALUE\\fR or \\fB\\-\\-NAME=VALUE\\fR. "
        "Options and arguments may come in any order after the command; "
        "\\fB\\-\\-\\fR ends the options.\n"
        ".SH COMMANDS\n",
        out);
  for (size_t c = 0; c < COMMAND_COUNT; c++) {
    const command *cmd = &commands[c];
    fprintf(out, ".SS \"%s ", cmd->name);
    roff(out, cmd->usage);
    fputs("\"\n", out);
    roff(out, cmd->about);
    fputs("\n.PP\nOptions:", out);
    int k = 0;
    for (size_t i = 0; i < n; i++) {
      if (!views[i].shown || !takes(cmd, &views[i])) continue;
      if (views[i].core) {
        fputs(k++ ? ", " : " ", out);
        fputs("the generator options", out);
        break;
      }
      fputs(k++ ? ", " : " ", out);
      roff_option_name(out, &views[i], false);
    }
    fputs(".\n", out);
    roff_examples(out, cmd->examples);
  }
  for (int core = 0; core <= 1; core++) {
    fputs(core ? ".SH GENERATOR OPTIONS\nTaken by \\fBgen\\fR. Durations "
                 "are in ms, or with a unit: 250, 250ms, 1.5s, 800us.\n"
               : ".SH OPTIONS\n",
          out);
    for (size_t i = 0; i < n; i++) {
      const option_view *v = &views[i];
      if (!v->shown || (v->core != NULL) != core) continue;
      fputs(".TP\n", out);
      roff_option_name(out, v, true);
      if (v->arg) fprintf(out, " \\fI%s\\fR", v->arg);
      fputc('\n', out);
      option_doc(v, doc, sizeof doc);
      roff(out, doc);
      fputc('\n', out);
      if (v->core && v->core->option == SFC_OPTION_ROLLBACK) {
        const sfc_rollback_info *r;
        fputs(".RS\n", out);
        for (size_t j = 0; (r = sfc_rollback_at(j)); j++) {
          fprintf(out, ".TP\n\\fB%s\\fR\n", r->name);
          roff(out, r->doc);
          fputc('\n', out);
        }
        fputs(".RE\n", out);
      }
      if (core) continue;
      fputs(".br\nTaken by ", out);
      int k = 0;
      for (size_t c = 0; c < COMMAND_COUNT; c++)
        if (takes(&commands[c], v))
          fprintf(out, "%s\\fB%s\\fR", k++ ? ", " : "", commands[c].name);
      fputs(".\n", out);
    }
  }
  fputs(".SH JSON\n"
        "With \\fB\\-\\-json\\fR every command prints JSON, one compact "
        "object per line, by one rule: IDs (\\fBid\\fR, \\fBmin\\fR, "
        "\\fBmax\\fR, \\fBmax_id\\fR) are decimal strings, as a JSON reader "
        "that reads numbers as doubles loses integers above 2^53; every "
        "other number is a JSON number; text is a string; a fact with no "
        "value is null. \\fBdecode\\fR, \\fBencode\\fR and \\fBgen\\fR print "
        "the canonical JSON of an ID, byte for byte the same in every "
        "language:\n"
        ".PP\n.RS 4\n.nf\n"
        "{\"id\":\"175928847299117063\",\"time_ms\":1462015105796,"
        "\"time\":\"2016\\-04\\-30T11:18:25.796Z\",\"worker\":1,"
        "\"process\":0,\"seq\":7}\n"
        ".fi\n.RE\n"
        ".PP\n"
        "\\fBgen \\-\\-stats \\-\\-json\\fR prints the generator's counters "
        "as one object on standard error, the node values and their "
        "sources as objects by field name.\n"
        ".SH ENVIRONMENT\n"
        ".TP\n"
        "\\fBSNOWFLAKE_\\fR<\\fIFIELD\\fR>\n"
        "The value of the node field \\fIFIELD\\fR (upper case: "
        "SNOWFLAKE_WORKER) when \\fB\\-\\-node\\fR does not give it: what "
        "\\fB\\-\\-node\\fR takes for one field (a number, auto, host or "
        "env:NAME).\n"
        ".SH EXIT STATUS\n"
        ".TP\n0\nSuccess.\n"
        ".TP\n1\nAn error: its kind and message on standard error, as "
        "\\fIKind\\fR: \\fImessage\\fR (InvalidLayout, InvalidArgument, "
        "ClockMovedBackwards, WorkerUnavailable, StateError, ...).\n"
        ".TP\n2\nA mistake in the command line: an unknown command or "
        "option (with the nearest one, when there is one), an option the "
        "command does not take, a missing value or argument.\n"
        ".SH SEE ALSO\n"
        "https://github.com/snowflake\\-c/snowflake\\-c\n",
        out);
}

/* ===================================================================== */
/* Shell completions                                                     */
/* ===================================================================== */

/* The names a completion offers as the value of option v, separated by
 * spaces; "" for none. */
static void value_words(const option_view *v, char *buf, size_t cap) {
  buf[0] = '\0';
  if (v->value == VALUE_PRESET) {
    append_presets(buf, cap);
  } else if (v->value == VALUE_ENCODING) {
    append_encodings(buf, cap);
  } else if (v->value == VALUE_CHOICE) {
    for (int k = 0; v->core->choices[k]; k++) {
      if (k) append(buf, cap, " ");
      append(buf, cap, v->core->choices[k]);
    }
  }
  /* the lists above are ", "-separated: spaces only */
  char *w = buf;
  for (const char *p = buf; *p; p++)
    if (*p != ',') *w++ = *p;
  *w = '\0';
}

static void print_bash(FILE *out) {
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  char words[600];
  fputs("# shellcheck shell=bash\n"
        "# bash completion for snowflake-c: written by `snowflake-c "
        "completions bash`,\n"
        "# from the command's own tables (core/cli/snowflake-c.c). Do not "
        "edit.\n"
        "_snowflake_c() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]} "
        "prev=${COMP_WORDS[COMP_CWORD - 1]} words=\"\"\n"
        "  # --NAME=VALUE: COMP_WORDBREAKS splits it at the '='.\n"
        "  [[ $cur = = ]] && cur=\"\"\n"
        "  [[ $prev = = ]] && prev=${COMP_WORDS[COMP_CWORD - 2]}\n"
        "  if ((COMP_CWORD == 1)); then\n"
        "    words=\"",
        out);
  for (size_t i = 0; i < COMMAND_COUNT; i++)
    fprintf(out, "%s ", commands[i].name);
  fputs("-h --help -V --version\"\n"
        "  else\n"
        "    case $prev in\n",
        out);
  /* Options whose value is a name: the names; a folder: the folders; the
   * user's own text: nothing. */
  for (size_t i = 0; i < n; i++) {
    const option_view *v = &views[i];
    if (!v->arg) continue;
    value_words(v, words, sizeof words);
    if (!words[0]) continue;
    /* the options that offer the same names share a case */
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) {
      char before[600];
      value_words(&views[j], before, sizeof before);
      seen = views[j].arg && strcmp(before, words) == 0;
    }
    if (seen) continue;
    fprintf(out, "    --%s", v->name);
    for (size_t j = i + 1; j < n; j++) {
      char same[600];
      value_words(&views[j], same, sizeof same);
      if (views[j].arg && strcmp(same, words) == 0)
        fprintf(out, " | --%s", views[j].name);
    }
    fprintf(out, ") words=\"%s\" ;;\n", words);
  }
  int k = 0;
  for (size_t i = 0; i < n; i++)
    if (views[i].arg && views[i].value == VALUE_DIR)
      fprintf(out, "%s--%s", k++ ? " | " : "    ", views[i].name);
  if (k)
    fputs(")\n"
          "      mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
          "      return\n"
          "      ;;\n",
          out);
  k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!views[i].arg || views[i].value == VALUE_DIR) continue;
    value_words(&views[i], words, sizeof words);
    if (words[0]) continue;
    if (views[i].short_name)
      fprintf(out, "%s-%c", k++ ? " | " : "    ", views[i].short_name);
    fprintf(out, "%s--%s", k++ ? " | " : "    ", views[i].name);
  }
  fputs(") return ;;\n"
        "    *)\n"
        "      case ${COMP_WORDS[1]} in\n",
        out);
  for (size_t c = 0; c < COMMAND_COUNT; c++) {
    const command *cmd = &commands[c];
    fprintf(out, "      %s) words=\"", cmd->name);
    k = 0;
    if (cmd->run == cmd_help)
      for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "%s%s", k++ ? " " : "", commands[i].name);
    if (cmd->run == cmd_completions)
      for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++)
        fprintf(out, "%s%s", k++ ? " " : "", shells[i]);
    for (size_t i = 0; i < n; i++)
      if (views[i].shown && takes(cmd, &views[i]))
        fprintf(out, "%s--%s", k++ ? " " : "", views[i].name);
    fputs("\" ;;\n", out);
  }
  fputs("      esac\n"
        "      ;;\n"
        "    esac\n"
        "  fi\n"
        "  mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
        "}\n"
        "complete -F _snowflake_c snowflake-c\n",
        out);
}

/* Text inside single quotes of zsh or fish: ' as '\'' (zsh) or \' (fish);
 * for zsh's _arguments, also [ ] : and \ escaped with a backslash. */
static void quoted(FILE *out, const char *text, bool fish, bool spec) {
  for (; *text; text++) {
    if (*text == '\'')
      fputs(fish ? "\\'" : "'\\''", out);
    else if (fish && *text == '\\')
      fputs("\\\\", out);
    else if (spec && strchr("[]:\\", *text))
      fprintf(out, "\\%c", *text);
    else
      fputc(*text, out);
  }
}

static void print_zsh(FILE *out) {
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  char brief[600], words[600];
  fputs("#compdef snowflake-c\n"
        "# zsh completion for snowflake-c: written by `snowflake-c "
        "completions zsh`,\n"
        "# from the command's own tables (core/cli/snowflake-c.c). Do not "
        "edit.\n"
        "_snowflake-c() {\n"
        "  local curcontext=$curcontext state line\n"
        "  local -a commands\n"
        "  commands=(\n",
        out);
  for (size_t i = 0; i < COMMAND_COUNT; i++) {
    fprintf(out, "    '%s:", commands[i].name);
    quoted(out, commands[i].summary, false, false);
    fputs("'\n", out);
  }
  fputs("  )\n"
        "  _arguments -C \\\n"
        "    '(- *)'{-h,--help}'[print the list of commands]' \\\n"
        "    '(- *)'{-V,--version}'[print the version]' \\\n"
        "    '1: :->command' \\\n"
        "    '*:: :->arguments'\n"
        "  case $state in\n"
        "  command) _describe -t commands 'snowflake-c command' commands ;;\n"
        "  arguments)\n"
        "    curcontext=${curcontext%:*:*}:snowflake-c-$words[1]:\n"
        "    case $words[1] in\n",
        out);
  for (size_t c = 0; c < COMMAND_COUNT; c++) {
    const command *cmd = &commands[c];
    fprintf(out, "    %s)\n      _arguments -S", cmd->name);
    for (size_t i = 0; i < n; i++) {
      const option_view *v = &views[i];
      if (!v->shown || !takes(cmd, v)) continue;
      option_brief(v, brief, sizeof brief);
      fputs(" \\\n        ", out);
      if (v->id == OPT_HELP)
        fputs("'(- *)'", out);
      else if (v->short_name)
        fprintf(out, "'(-%c --%s)'", v->short_name, v->name);
      if (v->short_name)
        fprintf(out, "{-%c%s,--%s%s}'[", v->short_name, v->arg ? "+" : "",
                v->name, v->arg ? "=" : "");
      else
        fprintf(out, "'--%s%s[", v->name, v->arg ? "=" : "");
      quoted(out, brief, false, true);
      fputc(']', out);
      if (v->arg) {
        fprintf(out, ":%s:", v->arg);
        value_words(v, words, sizeof words);
        if (v->value == VALUE_DIR)
          fputs("_files -/", out);
        else if (words[0])
          fprintf(out, "(%s)", words);
        else
          fputc(' ', out);
      }
      fputc('\'', out);
    }
    if (cmd->run == cmd_help) {
      fputs(" \\\n        '1:command:(", out);
      for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "%s%s", i ? " " : "", commands[i].name);
      fputs(")'", out);
    } else if (cmd->run == cmd_completions) {
      fputs(" \\\n        '1:shell:(", out);
      for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++)
        fprintf(out, "%s%s", i ? " " : "", shells[i]);
      fputs(")'", out);
    } else if (cmd->run == cmd_range) {
      fputs(" \\\n        '1:T0: ' \\\n        '2:T1: '", out);
    } else if (cmd->run == cmd_decode || cmd->run == cmd_convert) {
      fputs(" \\\n        '*:ID: '", out);
    } else if (cmd->run == cmd_encode) {
      fputs(" \\\n        '*:FIELD=VALUE: '", out);
    }
    fputs("\n      ;;\n", out);
  }
  fputs("    esac\n"
        "    ;;\n"
        "  esac\n"
        "}\n"
        "if [[ $funcstack[1] = _snowflake-c ]]; then\n"
        "  _snowflake-c \"$@\"\n"
        "else\n"
        "  compdef _snowflake-c snowflake-c\n"
        "fi\n",
        out);
}

static void print_fish(FILE *out) {
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  char brief[600], words[600];
  fputs("# fish completion for snowflake-c: written by `snowflake-c "
        "completions fish`,\n"
        "# from the command's own tables (core/cli/snowflake-c.c). Do not "
        "edit.\n"
        "complete -c snowflake-c -f\n",
        out);
  for (size_t i = 0; i < COMMAND_COUNT; i++) {
    fprintf(out, "complete -c snowflake-c -n __fish_use_subcommand -a %s -d '",
            commands[i].name);
    quoted(out, commands[i].summary, true, false);
    fputs("'\n", out);
  }
  fputs("complete -c snowflake-c -n __fish_use_subcommand -s h -l help -d "
        "'print the list of commands'\n"
        "complete -c snowflake-c -n __fish_use_subcommand -s V -l version -d "
        "'print the version'\n",
        out);
  for (size_t c = 0; c < COMMAND_COUNT; c++) {
    const command *cmd = &commands[c];
    const char *when = "complete -c snowflake-c -n "
                       "'__fish_seen_subcommand_from ";
    for (size_t i = 0; i < n; i++) {
      const option_view *v = &views[i];
      if (!v->shown || !takes(cmd, v)) continue;
      fprintf(out, "%s%s'", when, cmd->name);
      if (v->short_name) fprintf(out, " -s %c", v->short_name);
      fprintf(out, " -l %s", v->name);
      if (v->arg) {
        value_words(v, words, sizeof words);
        fputs(" -x", out);
        if (v->value == VALUE_DIR)
          fputs(" -a '(__fish_complete_directories)'", out);
        else if (words[0])
          fprintf(out, " -a '%s'", words);
      }
      option_brief(v, brief, sizeof brief);
      fputs(" -d '", out);
      quoted(out, brief, true, false);
      fputs("'\n", out);
    }
    if (cmd->run == cmd_help)
      for (size_t i = 0; i < COMMAND_COUNT; i++) {
        fprintf(out, "%shelp' -a %s -d '", when, commands[i].name);
        quoted(out, commands[i].summary, true, false);
        fputs("'\n", out);
      }
    if (cmd->run == cmd_completions) {
      fprintf(out, "%scompletions' -a '", when);
      for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++)
        fprintf(out, "%s%s", i ? " " : "", shells[i]);
      fputs("'\n", out);
    }
  }
}

/* ===================================================================== */
/* Reading the command line                                              */
/* ===================================================================== */

enum { HELP_SHOWN = -1 };

static bool parse_count(const char *text, long long min, long long max,
                        long long *out) {
  char *end;
  long long v = strtoll(text, &end, 10);
  if (!*text || *end || v < min || v > max) return false;
  *out = v;
  return true;
}

/* An option name no option of `cmd` has: the nearest of them, or the
 * commands that take it. `typed` is the option as given (`len` bytes, up to
 * any '='). */
static int unknown_option(const command *cmd, const option_view *views,
                          size_t n, const char *typed, size_t len) {
  const char *names[VIEW_MAX];
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    if (takes(cmd, &views[i])) names[count++] = views[i].name;
  char hint[200] = "";
  if (len > 2 && typed[1] == '-')
    suggest(typed + 2, len - 2, names, count, "--", "", hint, sizeof hint);
  else
    len = strlen(typed); /* "--=x": no name to name */
  return usage_error(cmd, "unknown option '%.*s'%s", (int)len, typed, hint);
}

/* Takes the value of option v (NULL for a flag) into c. */
static int set_option(const command *cmd, cli *c, const option_view *v,
                      const char *value) {
  sfc_error err;
  if (v->core) {
    c->option[v->id - OPT_OWN] = v->core->type == SFC_TYPE_BOOL
                                     ? (v->negative ? "false" : "true")
                                     : value;
    return 0;
  }
  switch ((own_option)v->id) {
  case OPT_PRESET:
    c->preset = value;
    break;
  case OPT_LAYOUT:
    c->spec = value;
    break;
  case OPT_EPOCH:
    c->epoch = value;
    break;
  case OPT_NODE:
    c->node = value;
    break;
  case OPT_TIME:
    c->time = value;
    break;
  case OPT_COUNT:
    if (!parse_count(value, 0, 1000000000000LL, &c->count))
      return usage_error(cmd, "--count takes a whole number from 0");
    break;
  case OPT_JSON:
    c->json = true;
    break;
  case OPT_STATS:
    c->stats = true;
    break;
  case OPT_SHORTEST:
    c->shortest = true;
    break;
  case OPT_MAN:
    c->man = true;
    break;
  case OPT_MONOTONIC:
    c->option[SFC_OPTION_TIME_SOURCE] = "monotonic";
    break;
  case OPT_FORMAT:
  case OPT_FROM:
  case OPT_TO: {
    sfc_encoding *enc = v->id == OPT_FORMAT ? &c->format
                        : v->id == OPT_FROM ? &c->from
                                            : &c->to;
    *(v->id == OPT_FORMAT ? &c->format_set
      : v->id == OPT_FROM ? &c->from_set
                          : &c->to_set) = true;
    if (sfc_encoding_by_name(value, strlen(value), enc, &err) != SFC_OK)
      return fail(&err);
    break;
  }
  case OPT_HELP:
    print_command_help(stdout, cmd);
    return HELP_SHOWN;
  case OPT_OWN:
    break;
  }
  return 0;
}

/* Reads argv[0..argc), what follows the command: its options into c, the
 * rest, in order, into args (*nargs of them). Returns 0, HELP_SHOWN, or the
 * exit status of a mistake. */
static int parse_options(const command *cmd, int argc, char **argv, cli *c,
                         char **args, int *nargs) {
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  bool options_ended = false;
  *nargs = 0;
  for (int k = 0; k < argc; k++) {
    const char *a = argv[k];
    if (options_ended || a[0] != '-' || a[1] == '\0') {
      args[(*nargs)++] = argv[k];
      continue;
    }
    if (strcmp(a, "--") == 0) {
      options_ended = true;
      continue;
    }
    const option_view *v = NULL;
    const char *value = NULL;
    char spelled[64]; /* the option as named in messages */
    if (a[1] == '-') {
      const char *name = a + 2;
      size_t len = strcspn(name, "=");
      for (size_t i = 0; i < n && !v; i++)
        if (strlen(views[i].name) == len &&
            strncmp(views[i].name, name, len) == 0)
          v = &views[i];
      if (!v) return unknown_option(cmd, views, n, a, len + 2);
      if (name[len] == '=') {
        if (!v->arg) return usage_error(cmd, "--%s takes no value", v->name);
        value = name + len + 1;
      }
      snprintf(spelled, sizeof spelled, "--%s", v->name);
    } else {
      for (size_t i = 0; i < n && !v; i++)
        if (views[i].short_name && views[i].short_name == a[1]) v = &views[i];
      if (!v || (a[2] && !v->arg))
        return usage_error(cmd, "unknown option '%s'", a);
      if (a[2]) value = a + 2;
      snprintf(spelled, sizeof spelled, "-%c", a[1]);
    }
    if (!takes(cmd, v))
      return usage_error(cmd, "%s takes no %s", cmd->name, spelled);
    if (v->arg && !value) {
      if (k + 1 == argc)
        return usage_error(cmd, "%s needs a value (%s)", spelled, v->arg);
      value = argv[++k];
    }
    int rc = set_option(cmd, c, v, value);
    if (rc) return rc;
  }
  return 0;
}

/* ===================================================================== */
/* Output                                                                */
/* ===================================================================== */

/* "worker=3,datacenter=1" → values; names point into `text`, which is
 * modified. */
static int parse_pairs(const command *cmd, char *text, const char *what,
                       sfc_node_value *out, size_t *count) {
  *count = 0;
  for (char *item = strtok(text, ","); item; item = strtok(NULL, ",")) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item || *count == SFC_MAX_FIELDS)
      return usage_error(cmd, "%s '%s' is not NAME=VALUE", what, item);
    *eq = '\0';
    sfc_error err;
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, eq + 1, strlen(eq + 1), 0};
    if (sfc_node_value_set(&out[*count], item, &v, &err) != SFC_OK)
      return fail(&err);
    (*count)++;
  }
  return 0;
}

static char *u64_to_text(uint64_t v, char *end) {
  do {
    *--end = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  return end;
}

static void print_parts(const sfc_layout *l, const sfc_parts *p, bool json) {
  if (json) {
    char buf[SFC_JSON_MAX];
    sfc_parts_json(l, p, buf, sizeof buf);
    puts(buf);
    return;
  }
  char iso[SFC_ISO_MAX];
  sfc_format_iso(p->time_ms, iso, sizeof iso);
  printf("%" PRIu64 "  %s", p->id, iso);
  for (unsigned i = 1; i < l->field_count; i++)
    printf("  %s=%" PRIu64, l->fields[i].name, p->values[i]);
  putchar('\n');
}

/* A JSON string. */
static void json_text(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(out, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(out, "\\u%04x", ch);
    else
      fputc(ch, out);
  }
  fputc('"', out);
}

/* Is the fact called `name` an ID ("id", "max_id")? The one JSON rule of
 * every command: IDs are decimal strings, as in the canonical JSON (a JSON
 * reader that reads numbers as doubles loses integers above 2^53); every
 * other number is a JSON number. */
static bool is_id(const char *name) {
  size_t n = strlen(name);
  return strcmp(name, "id") == 0 || (n > 3 && strcmp(name + n - 3, "_id") == 0);
}

/* One JSON value of a fact; `id`: an ID, a decimal string. */
static void json_value(FILE *out, const sfc_value *v, bool id) {
  switch (v->type) {
  case SFC_TYPE_TEXT:
    json_text(out, v->text);
    break;
  case SFC_TYPE_INT:
    fprintf(out, id ? "\"%" PRId64 "\"" : "%" PRId64, v->i);
    break;
  case SFC_TYPE_UINT:
    fprintf(out, id ? "\"%" PRIu64 "\"" : "%" PRIu64, v->u);
    break;
  case SFC_TYPE_DOUBLE:
    fprintf(out, "%.17g", v->d);
    break;
  default:
    fputs("null", out);
  }
}

/* One stats value on the --stats line: text in quotes when it has a
 * space. */
static void print_stat(const sfc_value *v) {
  if (v->type == SFC_TYPE_TEXT)
    fprintf(stderr, strchr(v->text, ' ') ? "\"%s\"" : "%s", v->text);
  else if (v->type == SFC_TYPE_INT)
    fprintf(stderr, "%" PRId64, v->i);
  else
    fprintf(stderr, "%" PRIu64, v->u);
}

/* The core's stats table on standard error: one line of name=value, then
 * each node field as field=value(source); or with --json one object, the
 * node values and their sources as objects by field name. */
static void print_stats(const sfc_generator *g, bool json) {
  sfc_stats s;
  sfc_generator_stats(g, &s);
  const sfc_fact_info *f;
  for (size_t i = 0; (f = sfc_stats_fact_at(i)); i++) {
    sfc_value v;
    sfc_stats_fact(&s, i, &v);
    if (!json) {
      if (v.type == SFC_TYPE_MAP) continue;
      fprintf(stderr, "%s%s=", i ? " " : "", f->name);
      print_stat(&v);
      continue;
    }
    fprintf(stderr, "%s\"%s\":", i ? "," : "{", f->name);
    if (v.type != SFC_TYPE_MAP) {
      json_value(stderr, &v, is_id(f->name));
      continue;
    }
    const char *key;
    sfc_value e;
    fputc('{', stderr);
    for (size_t j = 0; sfc_stats_entry(&s, i, j, &key, &e); j++) {
      if (j) fputc(',', stderr);
      json_text(stderr, key);
      fputc(':', stderr);
      json_value(stderr, &e, false);
    }
    fputc('}', stderr);
  }
  if (json) {
    fputs("}\n", stderr);
    return;
  }
  for (unsigned j = 0; j < s.node_count; j++)
    fprintf(stderr, " %s=%" PRIu64 "(%s)", s.node_names[j], s.node_values[j],
            sfc_node_source_name(s.node_sources[j]));
  fputc('\n', stderr);
}

/* ===================================================================== */
/* Commands                                                              */
/* ===================================================================== */

static int cmd_gen(cli *c, int argc, char **argv) {
  const command *cmd = find_command("gen");
  (void)argv;
  if (argc) return usage_error(cmd, "gen takes no arguments");
  if (c->json && c->format_set)
    return usage_error(cmd, "give --format or --json, not both");
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_node_value node[SFC_MAX_FIELDS];
  char *node_text = NULL;
  sfc_error err;
  int rc = 0;
  if (c->node) {
    size_t len = strlen(c->node);
    node_text = malloc(len + 1);
    if (!node_text) {
      fputs(PROG ": out of memory\n", stderr);
      return 1;
    }
    memcpy(node_text, c->node, len + 1);
    rc = parse_pairs(cmd, node_text, "--node", node, &opts.node_count);
  }
  if (rc) {
    free(node_text);
    return rc;
  }
  opts.node = node;
  for (size_t i = 0; i < OPTION_MAX && sfc_option_at(i); i++) {
    const char *text = c->option[i];
    if (!text) continue;
    /* Named as on the command line: "max-wait must be …". */
    char name[48];
    snprintf(name, sizeof name, "%s", sfc_option_at(i)->name);
    for (char *p = name; *p; p++)
      if (*p == '_') *p = '-';
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, text, strlen(text), 0};
    if (sfc_options_set(&opts, name, strlen(name), &v, &err) != SFC_OK) {
      free(node_text);
      return fail(&err);
    }
  }
  sfc_generator *g;
  sfc_status st = sfc_generator_new(&c->layout, &opts, &g, &err);
  free(node_text);
  if (st != SFC_OK) return fail(&err);
  const char *warning = sfc_generator_warning(g);
  if (warning) fprintf(stderr, PROG ": warning: %s\n", warning);

  enum { BATCH = 4096 };
  static uint64_t ids[BATCH];
  static char out[BATCH * SFC_ENCODED_MAX];
  long long left = c->count;
  while (left > 0 && rc == 0) {
    size_t want = left < BATCH ? (size_t)left : BATCH, got = 0;
    st = sfc_next_ids(g, ids, want, &got, &err);
    if (c->json) {
      for (size_t i = 0; i < got; i++) {
        sfc_parts p;
        sfc_decode(&c->layout, ids[i], &p, NULL);
        print_parts(&c->layout, &p, true);
      }
    } else if (c->format_set) {
      char *w = out;
      unsigned flags = c->shortest ? SFC_FORMAT_SHORTEST : 0;
      for (size_t i = 0; i < got; i++) {
        w += sfc_id_format(ids[i], c->format, flags, w, SFC_ENCODED_MAX);
        *w++ = '\n';
      }
      fwrite(out, 1, (size_t)(w - out), stdout);
    } else {
      char *w = out;
      for (size_t i = 0; i < got; i++) {
        char digits[21];
        char *d = u64_to_text(ids[i], digits + sizeof digits);
        size_t n = (size_t)(digits + sizeof digits - d);
        memcpy(w, d, n);
        w += n;
        *w++ = '\n';
      }
      fwrite(out, 1, (size_t)(w - out), stdout);
    }
    left -= (long long)got;
    if (st != SFC_OK) rc = fail(&err);
  }
  if (c->stats) print_stats(g, c->json);
  sfc_generator_free(g);
  return rc;
}

/* An ID given as text: decimal, or in the encoding of --from. */
static sfc_status parse_given(const cli *c, const char *text, size_t len,
                              uint64_t *id, sfc_error *err) {
  return sfc_id_parse(text, len, c->from_set ? c->from : SFC_ENCODING_DEC, id,
                      err);
}

static int decode_one(const cli *c, const char *text, size_t len) {
  sfc_error err;
  uint64_t id;
  sfc_parts p;
  if (parse_given(c, text, len, &id, &err) != SFC_OK ||
      sfc_decode(&c->layout, id, &p, &err) != SFC_OK)
    return fail(&err);
  print_parts(&c->layout, &p, c->json);
  return 0;
}

static int convert_one(const cli *c, const char *text, size_t len) {
  sfc_error err;
  uint64_t id;
  if (parse_given(c, text, len, &id, &err) != SFC_OK) return fail(&err);
  char out[SFC_ENCODED_MAX];
  sfc_encoding to = c->to_set ? c->to : SFC_ENCODING_DEC;
  /* Decimal out is the plain number unless --to asks for the fixed form. */
  unsigned flags = c->shortest || !c->to_set ? SFC_FORMAT_SHORTEST : 0;
  sfc_id_format(id, to, flags, out, sizeof out);
  if (c->json)
    printf("{\"id\":\"%" PRIu64 "\",\"%s\":\"%s\"}\n", id,
           sfc_encoding_name(to), out);
  else
    puts(out);
  return 0;
}

static int is_blank(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* Runs `one` on every argument, or on every token of standard input when
 * there is none. */
static int for_each_id(cli *c, int argc, char **argv,
                       int (*one)(const cli *, const char *, size_t)) {
  int rc = 0;
  if (argc) {
    for (int i = 0; i < argc; i++)
      rc |= one(c, argv[i], strlen(argv[i]));
    return rc;
  }
  /* Tokens between blanks, byte by byte as they arrive (a pipe that is
   * still open is decoded as it goes): a NUL byte is part of an ID, and
   * refused there, never its end. */
  char *tok = NULL;
  size_t len = 0, cap = 0;
  for (int ch;;) {
    ch = getc(stdin);
    if (ch != EOF && !is_blank((char)ch)) {
      if (len == cap) {
        char *grown = realloc(tok, cap ? cap * 2 : 64);
        if (!grown) {
          fputs(PROG ": out of memory reading standard input\n", stderr);
          free(tok);
          return 1;
        }
        tok = grown;
        cap = cap ? cap * 2 : 64;
      }
      tok[len++] = (char)ch;
      continue;
    }
    if (len) rc |= one(c, tok, len);
    len = 0;
    if (ch == EOF) break;
  }
  free(tok);
  return rc;
}

static int cmd_decode(cli *c, int argc, char **argv) {
  return for_each_id(c, argc, argv, decode_one);
}

static int cmd_convert(cli *c, int argc, char **argv) {
  return for_each_id(c, argc, argv, convert_one);
}

static int parse_time(const char *text, int64_t *ms, sfc_error *err) {
  if (sfc_epoch_parse(text, ms, err) == SFC_OK) return 0;
  err->status = SFC_INVALID_ARGUMENT;
  snprintf(err->message, sizeof err->message,
           "time '%s' is neither Unix milliseconds nor ISO-8601 UTC", text);
  return 1;
}

static int cmd_encode(cli *c, int argc, char **argv) {
  const command *cmd = find_command("encode");
  sfc_error err;
  if (!c->time) return usage_error(cmd, "encode needs --time (Unix ms or ISO)");
  int64_t ms;
  if (parse_time(c->time, &ms, &err)) return fail(&err);
  sfc_node_value fields[SFC_MAX_FIELDS];
  size_t count = 0;
  for (int i = 0; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) return usage_error(cmd, "encode takes fields as NAME=VALUE");
    if (count == SFC_MAX_FIELDS) return usage_error(cmd, "too many fields");
    *eq = '\0';
    size_t n = strlen(eq + 1);
    uint64_t v;
    if (sfc_id_parse(eq + 1, n, SFC_ENCODING_DEC, &v, &err) != SFC_OK ||
        v > INT64_MAX) {
      fprintf(stderr,
              PROG ": InvalidArgument: field '%s' has value '%s': give a "
                   "whole number from 0\n",
              argv[i], eq + 1);
      return 1;
    }
    fields[count].name = argv[i];
    fields[count].value = (int64_t)v;
    count++;
  }
  uint64_t id;
  if (sfc_encode_named(&c->layout, ms * 1000, fields, count, &id, &err) !=
      SFC_OK)
    return fail(&err);
  if (c->json) {
    sfc_parts p;
    sfc_decode(&c->layout, id, &p, NULL);
    print_parts(&c->layout, &p, true);
  } else {
    printf("%" PRIu64 "\n", id);
  }
  return 0;
}

static int cmd_range(cli *c, int argc, char **argv) {
  if (argc != 2)
    return usage_error(find_command("range"), "range takes two times: T0 T1");
  sfc_error err;
  int64_t t0, t1;
  uint64_t lo, hi;
  if (parse_time(argv[0], &t0, &err) || parse_time(argv[1], &t1, &err))
    return fail(&err);
  if (sfc_range(&c->layout, t0, t1, &lo, &hi, &err) != SFC_OK)
    return fail(&err);
  if (c->json)
    printf("{\"min\":\"%" PRIu64 "\",\"max\":\"%" PRIu64 "\"}\n", lo, hi);
  else
    printf("%" PRIu64 " %" PRIu64 "\n", lo, hi);
  return 0;
}

/* The layout's description: the core's table of facts, in its order. */
static void print_layout_json(const sfc_layout *l) {
  const sfc_fact_info *f;
  char buf[SFC_SPEC_MAX];
  for (size_t i = 0; (f = sfc_layout_fact_at(i)); i++) {
    sfc_value v;
    sfc_layout_fact(l, i, &v, buf, sizeof buf);
    printf("%s\"%s\":", i ? "," : "{", f->name);
    if (v.type != SFC_TYPE_LIST) {
      json_value(stdout, &v, is_id(f->name));
      continue;
    }
    for (unsigned j = 0; j < l->field_count; j++) {
      const sfc_fact_info *g;
      for (size_t k = 0; (g = sfc_field_fact_at(k)); k++) {
        sfc_value fv;
        sfc_field_fact(&l->fields[j], k, &fv);
        printf("%s\"%s\":", k ? "," : j ? ",{" : "[{", g->name);
        json_value(stdout, &fv, is_id(g->name));
      }
      putchar('}');
    }
    putchar(']');
  }
  puts("}");
}

static int cmd_layout(cli *c, int argc, char **argv) {
  (void)argv;
  if (argc)
    return usage_error(find_command("layout"), "layout takes no arguments");
  const sfc_layout *l = &c->layout;
  sfc_layout_info info;
  sfc_layout_describe(l, &info);
  char spec[SFC_SPEC_MAX], epoch[SFC_ISO_MAX], end[SFC_ISO_MAX];
  sfc_layout_spec(l, spec, sizeof spec);
  sfc_format_iso(l->epoch_ms, epoch, sizeof epoch);
  sfc_format_iso(info.time_end_ms, end, sizeof end);
  if (c->json) {
    print_layout_json(l);
    return 0;
  }
  printf("layout          %s\nepoch           %" PRId64 " (%s)\n"
         "bits            %u\n\n%-12s %-6s %5s %6s  %s\n",
         spec, l->epoch_ms, epoch, l->total_bits, "field", "kind", "bits",
         "shift", "max");
  for (unsigned i = 0; i < l->field_count; i++) {
    const sfc_field *f = &l->fields[i];
    printf("%-12s %-6s %5u %6u  %" PRIu64 "\n", f->name,
           sfc_field_kind_name(f->kind), f->bits, f->shift, f->max);
  }
  printf("\nIDs per second  %.0f per node\nnodes           %.0f\n"
         "time runs out   %s\n",
         info.ids_per_second, info.node_capacity, end);
  return 0;
}

static int cmd_presets(cli *c, int argc, char **argv) {
  (void)argv;
  if (argc)
    return usage_error(find_command("presets"), "presets takes no arguments");
  for (size_t i = 0; i < sfc_preset_count(); i++) {
    const char *name, *spec;
    int64_t epoch;
    sfc_preset_at(i, &name, &spec, &epoch);
    if (c->json)
      printf("{\"name\":\"%s\",\"spec\":\"%s\",\"epoch_ms\":%" PRId64 "}\n",
             name, spec, epoch);
    else
      printf("%-10s %-42s %" PRId64 "\n", name, spec, epoch);
  }
  return 0;
}

static int cmd_help(cli *c, int argc, char **argv) {
  const command *self = find_command("help");
  if (argc > 1 || (argc && c->man))
    return usage_error(self, "help takes one command, or --man");
  if (c->man) {
    print_man(stdout);
  } else if (argc == 0) {
    print_overview(stdout);
  } else {
    const command *cmd = find_command(argv[0]);
    if (!cmd) return unknown_command(argv[0]);
    print_command_help(stdout, cmd);
  }
  return 0;
}

static int cmd_completions(cli *c, int argc, char **argv) {
  (void)c;
  const command *self = find_command("completions");
  enum { SHELLS = sizeof shells / sizeof shells[0] };
  if (argc != 1)
    return usage_error(self, "completions takes one shell: bash, zsh or fish");
  void (*print[SHELLS])(FILE *) = {print_bash, print_zsh, print_fish};
  for (size_t i = 0; i < SHELLS; i++)
    if (strcmp(argv[0], shells[i]) == 0) {
      print[i](stdout);
      return 0;
    }
  char hint[200];
  suggest(argv[0], strlen(argv[0]), shells, SHELLS, "", "'", hint, sizeof hint);
  return usage_error(self, "unknown shell '%s'%s", argv[0], hint);
}

/* ===================================================================== */
/* main                                                                  */
/* ===================================================================== */

/* The command line's first word, when it is not a command. */
static int first_word(const char *word) {
  if (!strcmp(word, "-h") || !strcmp(word, "--help")) {
    print_overview(stdout);
    return 0;
  }
  if (!strcmp(word, "-V") || !strcmp(word, "--version")) {
    printf(PROG " %s\n", sfc_version_string());
    return 0;
  }
  if (word[0] != '-') return unknown_command(word);
  /* An option of a command, given before it? */
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  size_t len = strcspn(word, "=");
  for (size_t i = 0; i < n; i++)
    if ((word[1] == '-' && strlen(views[i].name) == len - 2 &&
         strncmp(views[i].name, word + 2, len - 2) == 0) ||
        (word[1] != '-' && views[i].short_name == word[1] &&
         views[i].short_name))
      return usage_error(NULL,
                         "%.*s goes after the command: " PROG
                         " COMMAND [OPTIONS] [ARGS]",
                         (int)len, word);
  static const char *const globals[] = {"help", "version"};
  char hint[200] = "";
  if (len > 2 && word[1] == '-')
    suggest(word + 2, len - 2, globals, 2, "--", "", hint, sizeof hint);
  else
    len = strlen(word);
  return usage_error(NULL, "unknown option '%.*s'%s", (int)len, word, hint);
}

int main(int argc, char **argv) {
#if defined(_WIN32)
  /* "\n", not "\r\n": the same bytes on every platform. */
  _setmode(_fileno(stdout), _O_BINARY);
#endif
  if (argc < 2) {
    print_overview(stderr);
    return 2;
  }
  const command *cmd = find_command(argv[1]);
  if (!cmd) return first_word(argv[1]);

  cli c;
  memset(&c, 0, sizeof c);
  c.count = 1;
  char **args = malloc((size_t)argc * sizeof *args);
  if (!args) {
    fputs(PROG ": out of memory\n", stderr);
    return 1;
  }
  int nargs = 0;
  int rc = parse_options(cmd, argc - 2, argv + 2, &c, args, &nargs);
  if (rc == 0 && c.shortest && !c.format_set && !c.to_set)
    rc = usage_error(cmd, "--shortest goes with --format or --to");
  if (rc == 0 && (cmd->takes & TAKES(OPT_PRESET))) {
    /* A mistake in combining --preset, --layout and --epoch is a usage
     * error; a bad preset, spec or epoch is the layout's. */
    sfc_error err;
    sfc_status st =
        sfc_layout_resolve(NULL, c.preset, c.spec, c.epoch, &c.layout, &err);
    if (st == SFC_INVALID_ARGUMENT)
      rc = usage_error(cmd, "%s", err.message);
    else if (st != SFC_OK)
      rc = fail(&err);
  }
  if (rc == 0) rc = cmd->run(&c, nargs, args);
  free(args);
  if (rc == HELP_SHOWN) rc = 0;
  if (fflush(stdout) != 0 && rc == 0) {
    perror(PROG ": writing output");
    rc = 1;
  }
  return rc;
}
