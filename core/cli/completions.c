/* The shell completions (completions bash|zsh|fish), from the command's own
 * tables. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* The names a completion offers as the value of option v, separated by
 * spaces; "" for none. */
static void value_words(const option_view *v, char *buf, size_t cap) {
  buf[0] = '\0';
  if (v->value == VALUE_PRESET) {
    append_presets(buf, cap);
  } else if (v->value == VALUE_ENCODING || v->value == VALUE_FROM) {
    append_encodings(buf, cap);
    if (v->value == VALUE_FROM) append(buf, cap, " uuid7");
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
        "# from the command's own tables (core/cli/commands.c, options.c). Do "
        "not "
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
  for (size_t i = 0; i < command_count; i++)
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
  for (size_t c = 0; c < command_count; c++) {
    const command *cmd = &commands[c];
    fprintf(out, "      %s) words=\"", cmd->name);
    k = 0;
    if (cmd->args == ARGS_COMMAND)
      for (size_t i = 0; i < command_count; i++)
        fprintf(out, "%s%s", k++ ? " " : "", commands[i].name);
    if (cmd->args == ARGS_SHELL)
      for (size_t i = 0; i < SHELL_COUNT; i++)
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
        "# from the command's own tables (core/cli/commands.c, options.c). Do "
        "not "
        "edit.\n"
        "_snowflake-c() {\n"
        "  local curcontext=$curcontext state line\n"
        "  local -a commands\n"
        "  commands=(\n",
        out);
  for (size_t i = 0; i < command_count; i++) {
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
  for (size_t c = 0; c < command_count; c++) {
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
    if (cmd->args == ARGS_COMMAND) {
      fputs(" \\\n        '1:command:(", out);
      for (size_t i = 0; i < command_count; i++)
        fprintf(out, "%s%s", i ? " " : "", commands[i].name);
      fputs(")'", out);
    } else if (cmd->args == ARGS_SHELL) {
      fputs(" \\\n        '1:shell:(", out);
      for (size_t i = 0; i < SHELL_COUNT; i++)
        fprintf(out, "%s%s", i ? " " : "", shells[i]);
      fputs(")'", out);
    } else if (cmd->args == ARGS_TIMES) {
      fputs(" \\\n        '1:T0: ' \\\n        '2:T1: '", out);
    } else if (cmd->args == ARGS_IDS) {
      fputs(" \\\n        '*:ID: '", out);
    } else if (cmd->args == ARGS_FIELDS) {
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
        "# from the command's own tables (core/cli/commands.c, options.c). Do "
        "not "
        "edit.\n"
        "complete -c snowflake-c -f\n",
        out);
  for (size_t i = 0; i < command_count; i++) {
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
  for (size_t c = 0; c < command_count; c++) {
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
    if (cmd->args == ARGS_COMMAND)
      for (size_t i = 0; i < command_count; i++) {
        fprintf(out, "%shelp' -a %s -d '", when, commands[i].name);
        quoted(out, commands[i].summary, true, false);
        fputs("'\n", out);
      }
    if (cmd->args == ARGS_SHELL) {
      fprintf(out, "%scompletions' -a '", when);
      for (size_t i = 0; i < SHELL_COUNT; i++)
        fprintf(out, "%s%s", i ? " " : "", shells[i]);
      fputs("'\n", out);
    }
  }
}

int cmd_completions(cli *c, int argc, char **argv) {
  (void)c;
  const command *self = find_command("completions");
  enum { SHELLS = SHELL_COUNT };
  if (argc != 1)
    return usage_error(self, "completions takes one shell: bash, zsh or fish");
  void (*print[SHELLS])(FILE *) = {print_bash, print_zsh, print_fish};
  for (size_t i = 0; i < SHELLS; i++)
    if (strcmp(argv[0], shells[i]) == 0) {
      print[i](stdout);
      return 0;
    }
  char hint[200];
  sfc_suggest(argv[0], strlen(argv[0]), shells, SHELLS, "", "'", hint,
              sizeof hint);
  return usage_error(self, "unknown shell '%s'%s", argv[0], hint);
}
