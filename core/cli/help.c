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

int unknown_command(const char *name) {
  const char *names[command_count];
  for (size_t i = 0; i < command_count; i++)
    names[i] = commands[i].name;
  char hint[200];
  sfc_suggest(name, strlen(name), names, command_count, "", "'", hint,
              sizeof hint);
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
