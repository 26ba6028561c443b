/* Errors, "did you mean", and the help: the overview and each command's
 * usage, options and examples. */
#include "cli.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int fail(const sfc_error *err) {
  char said[2 * SFC_MESSAGE_MAX]; /* the options as flags: --state-dir */
  sfc_text_in_terms(err->message, SFC_TERMS_FLAG, said, sizeof said);
  fprintf(stderr, PROG ": %s: %s\n", sfc_status_name(err->status), said);
  return 1;
}

/* A mistake in the command line: the message, where to read more, and exit
 * status 2. */
int usage_error(const command *cmd, const char *format, ...) {
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
void suggest(const char *typed, size_t n, const char *const *names,
             size_t count, const char *dashes, const char *quote, char *out,
             size_t cap) {
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
int unknown_command(const char *name) {
  const char *names[command_count];
  for (size_t i = 0; i < command_count; i++)
    names[i] = commands[i].name;
  char hint[200];
  suggest(name, strlen(name), names, command_count, "", "'", hint, sizeof hint);
  return usage_error(NULL, "unknown command '%s'%s", name, hint);
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

void print_overview(FILE *out) {
  fputs("usage: " PROG " COMMAND [OPTIONS] [ARGS]\n\n", out);
  wrap(out,
       "Generates, decodes and encodes 64-bit, time-ordered IDs of the "
       "Snowflake family.",
       0);
  fputs("\ncommands:\n", out);
  for (size_t i = 0; i < command_count; i++)
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

void print_command_help(FILE *out, const command *cmd) {
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

int cmd_help(cli *c, int argc, char **argv) {
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
