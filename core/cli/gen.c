/* gen: IDs of one layout for one node value, and --stats. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
  if (json) {
    sfk_sink out = sfk_file_sink(stderr);
    sfk_json_stats(&out, &s);
    fputc('\n', stderr);
    return;
  }
  const sfc_fact_info *f;
  for (size_t i = 0; (f = sfc_stats_fact_at(i)); i++) {
    sfc_value v;
    sfc_stats_fact(&s, i, &v);
    if (v.type == SFC_TYPE_MAP) continue;
    fprintf(stderr, "%s%s=", i ? " " : "", f->name);
    print_stat(&v);
  }
  const char *name;
  sfc_value node, source;
  for (size_t j = 0;
       sfc_stats_entry(&s, SFC_STAT_NODE, j, &name, &node) &&
       sfc_stats_entry(&s, SFC_STAT_NODE_SOURCES, j, &name, &source);
       j++)
    fprintf(stderr, " %s=%" PRIu64 "(%s)", name, node.u, source.text);
  fputc('\n', stderr);
}

int make_generator(cli *c, const command *cmd, sfc_generator **out) {
  sfc_options opts;
  sfc_options_init(&opts);
  sfk_node_list node;
  sfc_error err;
  if (c->node) {
    if (sfk_node_list_split(&node, c->node, "--node", &err) != SFC_OK)
      return usage_error(cmd, "%s", err.message);
    if (sfk_node_list_values(&node, &err) != SFC_OK) return fail(&err);
    sfc_options_set_nodes(&opts, node.values, node.count);
  }
  for (size_t i = 0; i < OPTION_MAX && sfc_option_at(i); i++) {
    const char *text = c->option[i];
    if (!text) continue;
    /* Named as on the command line: "max-wait must be …". */
    char name[48];
    snprintf(name, sizeof name, "%s", sfc_option_at(i)->name);
    for (char *p = name; *p; p++)
      if (*p == '_') *p = '-';
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, text, strlen(text), 0};
    if (sfc_options_set(&opts, name, strlen(name), &v, &err) != SFC_OK)
      return fail(&err);
  }
  if (wants_lease(c, &opts)) {
    int rc = lease_generator(c, cmd, &opts, out);
    if (rc) return rc;
  } else if (sfc_generator_new(&c->layout, &opts, out, &err) != SFC_OK) {
    return fail(&err);
  }
  const char *text;
  char said[2 * SFC_MESSAGE_MAX];
  for (size_t i = 0; sfc_generator_warning_at(*out, i, &text); i++) {
    sfc_text_in_terms(text, SFC_TERMS_FLAG, said, sizeof said);
    fprintf(stderr, PROG ": warning: %s\n", said);
  }
  return 0;
}

int cmd_gen(cli *c, int argc, char **argv) {
  const command *cmd = find_command("gen");
  (void)argv;
  if (argc) return usage_error(cmd, "gen takes no arguments");
  if (c->json && c->format.set)
    return usage_error(cmd, "give --format or --json, not both");
  sfc_generator *g;
  sfc_error err;
  sfc_status st;
  int rc = make_generator(c, cmd, &g);
  if (rc) return rc;

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
    } else if (c->format.set) {
      char *w = out;
      unsigned flags = c->shortest ? SFC_FORMAT_SHORTEST
                       : c->fixed  ? SFC_FORMAT_FIXED
                                   : 0;
      for (size_t i = 0; i < got; i++) {
        w += sfc_id_format(ids[i], c->format.value, flags, w, SFC_ENCODED_MAX);
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
  if (c->stats) {
    print_stats(g, c->json);
    lease_print_stats(c->json);
  }
  generator_free(g);
  return rc;
}
