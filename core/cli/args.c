/* Reading the command line: each option by its row, the arguments in
 * order. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    sfc_suggest(typed + 2, len - 2, names, count, "--", "", hint, sizeof hint);
  else
    len = strlen(typed); /* "--=x": no name to name */
  return usage_error(cmd, "unknown option '%.*s'%s", (int)len, typed, hint);
}

/* Takes the value of option v (NULL for a flag) into c, as its row says. */
static int set_option(const command *cmd, cli *c, const option_view *v,
                      const char *value) {
  if (v->core) {
    c->option[v->id - OPT_OWN] = v->core->type == SFC_TYPE_BOOL
                                     ? (v->negative ? "false" : "true")
                                     : value;
    return 0;
  }
  const option_row *r = &own_options[v->id];
  char *at = (char *)c + r->at;
  sfc_error err;
  switch (r->effect) {
  case SET_TEXT:
    *(const char **)(void *)at = value;
    break;
  case SET_FLAG:
    *(bool *)(void *)at = true;
    break;
  case SET_COUNT:
    if (!parse_count(value, 0, 1000000000000LL, (long long *)(void *)at))
      return usage_error(cmd, "--%s takes a whole number from 0", r->name);
    break;
  case SET_ENCODING: {
    encoding_choice *e = (encoding_choice *)(void *)at;
    e->set = true;
    if (v->value == VALUE_FROM && strcmp(value, "uuid7") == 0) {
      e->uuid7 = true;
      break;
    }
    if (sfc_encoding_by_name(value, strlen(value), &e->value, &err) != SFC_OK) {
      if (v->value == VALUE_FROM) /* the core's list, and the CLI's own */
        strncat(err.message, ", or uuid7 (decode only)",
                sizeof err.message - strlen(err.message) - 1);
      return fail(&err);
    }
    break;
  }
  case SET_CORE:
    c->option[r->at] = r->fixed;
    break;
  case SET_HELP:
    print_command_help(stdout, cmd);
    return HELP_SHOWN;
  }
  return 0;
}

/* Reads argv[0..argc), what follows the command: its options into c, the
 * rest, in order, into args (*nargs of them). Returns 0, HELP_SHOWN, or the
 * exit status of a mistake. */
int parse_options(const command *cmd, int argc, char **argv, cli *c,
                  char **args, int *nargs) {
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  bool options_ended = false, given[VIEW_MAX] = {false};
  *nargs = 0;
  for (int k = 0; k < argc; k++) {
    const char *a = argv[k];
    /* "-5" is an argument (an ID, a time), which says what is wrong with
     * it, never an unknown option: no option is a digit. */
    if (options_ended || a[0] != '-' || a[1] == '\0' ||
        (a[1] >= '0' && a[1] <= '9')) {
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
    /* A list given twice would lose its first part unseen (a later
     * single value overrides an earlier one, as wrappers and aliases rely
     * on). */
    if (v->arg && strcmp(v->arg, "LIST") == 0 && given[v - views])
      return usage_error(cmd,
                         "%s is given twice: give every value in one "
                         "(worker=3,datacenter=1)",
                         spelled);
    given[v - views] = true;
    int rc = set_option(cmd, c, v, value);
    if (rc) return rc;
  }
  return 0;
}

int parse_time(const char *text, int64_t *ms, sfc_error *err) {
  if (sfc_epoch_parse(text, ms, err) == SFC_OK) return 0;
  err->status = SFC_INVALID_ARGUMENT;
  snprintf(err->message, sizeof err->message,
           "time '%s' is neither Unix milliseconds nor ISO-8601 UTC", text);
  return 1;
}
