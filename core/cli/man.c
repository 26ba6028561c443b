/* The manual page (help --man), roff, from the command's own tables. */
#include "cli.h"

#include <stdio.h>

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

void print_man(FILE *out) {
  option_view views[VIEW_MAX];
  size_t n = option_views(views);
  char doc[600];
  fputs(".\\\" The manual of snowflake-c: written by `snowflake-c help --man`, "
        "from the\n"
        ".\\\" command's own tables (core/cli/commands.c, options.c). Do not "
        "edit.\n"
        ".TH SNOWFLAKE\\-C 1 \"\" \"snowflake\\-c\" \"User Commands\"\n"
        ".SH NAME\n"
        "snowflake\\-c \\- generate, decode and encode 64\\-bit, "
        "time\\-ordered IDs\n"
        ".SH SYNOPSIS\n.nf\n",
        out);
  for (size_t i = 0; i < command_count; i++) {
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
  for (size_t c = 0; c < command_count; c++) {
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
      for (size_t c = 0; c < command_count; c++)
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
