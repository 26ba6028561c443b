/* The command line's first word: a command, run with its options read and
 * its layout resolved; else --help, --version, or a mistake. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

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
    sfc_suggest(word + 2, len - 2, globals, 2, "--", "", hint, sizeof hint);
  else
    len = strlen(word);
  return usage_error(NULL, "unknown option '%.*s'%s", (int)len, word, hint);
}

/* The environment's text of `name`, NULL when unset or empty. */
static const char *env_text(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* The layout of the command line: --preset, or --layout with --epoch; when
 * none is given, SNOWFLAKE_PRESET, or SNOWFLAKE_LAYOUT with SNOWFLAKE_EPOCH
 * (a layout configured once for a shell). A command that makes IDs may use
 * the default preset; one that reads IDs made elsewhere never assumes one.
 * A mistake in combining them is a usage error; a bad preset, spec or
 * epoch is the layout's. */
static int resolve_layout(const command *cmd, cli *c) {
  const char *preset = c->preset, *spec = c->spec, *epoch = c->epoch;
  if (!preset && !spec && !epoch) {
    preset = env_text("SNOWFLAKE_PRESET");
    spec = env_text("SNOWFLAKE_LAYOUT");
    epoch = env_text("SNOWFLAKE_EPOCH");
  }
  sfc_error err;
  sfc_status st =
      cmd->generator
          ? sfc_layout_resolve(NULL, preset, spec, epoch, &c->layout, &err)
          : sfc_layout_resolve_for_ids(NULL, preset, spec, epoch, &c->layout,
                                       &err);
  if (st == SFC_INVALID_ARGUMENT && !preset && !spec && !epoch)
    return usage_error(cmd,
                       "%s: give --preset NAME, or --layout SPEC --epoch E "
                       "(or set SNOWFLAKE_PRESET, or SNOWFLAKE_LAYOUT and "
                       "SNOWFLAKE_EPOCH)",
                       err.message);
  if (st == SFC_INVALID_ARGUMENT) return usage_error(cmd, "%s", err.message);
  return st == SFC_OK ? 0 : fail(&err);
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
  c.max_count = 100000;
  c.max_connections = 1024;
  c.idle_timeout = 60;
  char **args = malloc((size_t)argc * sizeof *args);
  if (!args) {
    fputs(PROG ": out of memory\n", stderr);
    return 1;
  }
  int nargs = 0;
  int rc = parse_options(cmd, argc - 2, argv + 2, &c, args, &nargs);
  if (rc == 0 && c.shortest && !c.format.set && !c.to.set)
    rc = usage_error(cmd, "--shortest goes with --format or --to");
  else if (rc == 0 && c.fixed && !c.format.set && !c.to.set)
    rc = usage_error(cmd, "--fixed goes with --format or --to");
  else if (rc == 0 && c.shortest && c.fixed)
    rc = usage_error(cmd, "--shortest and --fixed ask for opposite forms: "
                          "give one");
  if (rc == 0 && c.from.uuid7 && strcmp(cmd->name, "decode") != 0)
    rc = usage_error(cmd, "--from uuid7 goes with decode: a UUID is not a "
                          "64-bit ID");
  else if (rc == 0 && c.from.uuid7 && (c.preset || c.spec || c.epoch))
    rc = usage_error(cmd, "--from uuid7 takes no layout: a UUIDv7's time is "
                          "its own (drop --preset, --layout and --epoch)");
  else if (rc == 0 && (cmd->takes & TAKES(OPT_PRESET)) && !c.from.uuid7)
    rc = resolve_layout(cmd, &c);
  if (rc == 0) rc = cmd->run(&c, nargs, args);
  free(args);
  if (rc == HELP_SHOWN) rc = 0;
  if (fflush(stdout) != 0 && rc == 0) {
    perror(PROG ": writing output");
    rc = 1;
  }
  return rc;
}
