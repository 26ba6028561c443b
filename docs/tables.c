/* The core's tables as Markdown, for the documentation: the options, the
 * rollback strategies, the error kinds, the layout and field facts, the
 * stats, the encodings and the presets, each walked through the public header
 * alone, and the guard's refusal as a second live generator of one value gets
 * it, held by this process and by another. scripts/docs writes the documents'
 * generated blocks from this output and checks them against it:
 *
 *   doc-tables            every table, one "## name" section each
 *
 * Cells are plain text (no Markdown inside): `|` and `\` are escaped with a
 * backslash, an empty cell is "-". Exits 1, saying why, when a table cannot
 * be read (a preset that does not parse, a guard that lets the second
 * generator start). */
#include "snowflake_c.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <process.h> /* _getpid */
#define getpid _getpid
#else
#include <sys/wait.h>
#include <unistd.h>
#endif

static void cell(const char *text) {
  fputs("| ", stdout);
  if (!text || !*text) text = "-";
  for (; *text; text++) {
    if (*text == '|' || *text == '\\') putchar('\\');
    putchar(*text == '\n' ? ' ' : *text);
  }
  putchar(' ');
}

static void cell_i64(int64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "%" PRId64, v);
  cell(buf);
}

static void end_row(void) {
  puts("|");
}

static void header(const char *section, const char *const *columns) {
  printf("\n## %s\n\n", section);
  size_t n = 0;
  for (; columns[n]; n++)
    cell(columns[n]);
  end_row();
  for (size_t i = 0; i < n; i++)
    fputs("|---", stdout);
  end_row();
}

static void options(void) {
  static const char *const columns[] = {"name", "type",    "default", "min",
                                        "max",  "choices", "doc",     NULL};
  header("options", columns);
  for (size_t i = 0; sfc_option_at(i); i++) {
    const sfc_option_info *o = sfc_option_at(i);
    char choices[256] = "";
    size_t used = 0;
    for (size_t c = 0; o->choices && o->choices[c] && used < sizeof choices;
         c++)
      used += (size_t)snprintf(choices + used, sizeof choices - used, "%s%s",
                               c ? ", " : "", o->choices[c]);
    cell(o->name);
    cell(sfc_type_name(o->type));
    cell(o->default_text);
    cell_i64(o->min);
    cell_i64(o->max);
    cell(choices);
    cell(o->doc);
    end_row();
  }
}

static void rollbacks(void) {
  static const char *const columns[] = {
      "number", "name", "max_wait_ms", "max_drift_ms", "needs", "doc", NULL};
  header("rollback", columns);
  for (size_t i = 0; sfc_rollback_at(i); i++) {
    const sfc_rollback_info *r = sfc_rollback_at(i);
    char needs[64];
    snprintf(needs, sizeof needs, "%s%s%s",
             r->needs & SFC_NEEDS_CLOCK_FIELD ? "clock_field" : "",
             (r->needs & SFC_NEEDS_CLOCK_FIELD) && (r->needs & SFC_NEEDS_POOL)
                 ? ", "
                 : "",
             r->needs & SFC_NEEDS_POOL ? "pool" : "");
    cell_i64((int64_t)r->rollback);
    cell(r->name);
    cell_i64(r->max_wait_ms);
    cell_i64(r->max_drift_ms);
    cell(needs);
    cell(r->doc);
    end_row();
  }
}

static void statuses(void) {
  static const char *const columns[] = {"number", "name", "error", "message",
                                        NULL};
  header("errors", columns);
  for (size_t i = 0; sfc_status_at(i); i++) {
    const sfc_status_info *s = sfc_status_at(i);
    cell_i64((int64_t)s->status);
    cell(s->name);
    cell(s->is_error ? "yes" : "no");
    cell(s->message);
    end_row();
  }
}

/* The metric column: how a monitoring system reads a stat ("-" elsewhere). */
static void facts(const char *section, const sfc_fact_info *(*at)(size_t i)) {
  static const char *const columns[] = {"name", "type", "doc", "metric", NULL};
  header(section, columns);
  for (size_t i = 0; at(i); i++) {
    cell(at(i)->name);
    cell(sfc_type_name(at(i)->type));
    cell(at(i)->doc);
    cell(at(i)->metric == SFC_METRIC_COUNTER ? "counter"
         : at(i)->metric == SFC_METRIC_GAUGE ? "gauge"
                                             : "");
    end_row();
  }
}

static int presets(void) {
  static const char *const columns[] = {
      "name", "spec", "epoch_ms", "epoch", "time_end_ms", "time_end", NULL};
  header("presets", columns);
  for (size_t i = 0; i < sfc_preset_count(); i++) {
    const char *name, *spec;
    int64_t epoch_ms;
    sfc_layout layout;
    sfc_layout_info info;
    sfc_error err;
    char epoch[SFC_ISO_MAX], end[SFC_ISO_MAX];
    if (sfc_preset_at(i, &name, &spec, &epoch_ms) != SFC_OK ||
        sfc_layout_preset(name, &layout, &err) != SFC_OK) {
      fprintf(stderr, "doc-tables: preset %zu does not load\n", i);
      return 1;
    }
    sfc_layout_describe(&layout, &info);
    sfc_format_iso(epoch_ms, epoch, sizeof epoch);
    sfc_format_iso(info.time_end_ms, end, sizeof end);
    cell(name);
    cell(spec);
    cell_i64(epoch_ms);
    cell(epoch);
    cell_i64(info.time_end_ms);
    cell(end);
    end_row();
  }
  return 0;
}

/* The refusal of `second`, held by `holder` of claim `claim`, as a row. */
static void refusal_row(const char *where, long holder, const char *claim,
                        const char *message) {
  char pid[24];
  snprintf(pid, sizeof pid, "%ld", holder);
  cell(where);
  cell("datacenter=1,worker=3");
  cell(pid);
  cell(claim);
  cell(message);
  end_row();
}

/* A generator of the documents' value, datacenter=1,worker=3. */
static sfc_status documents_value(const sfc_layout *layout, sfc_generator **g,
                                  sfc_error *err) {
  sfc_node_value node[] = {{"datacenter", 1, SFC_SOURCE_EXPLICIT},
                           {"worker", 3, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 2);
  return sfc_generator_new(layout, &opts, g, err);
}

/* The first generator of the value; its claim's name in `claim`. */
static sfc_generator *holder(const sfc_layout *layout, char *claim,
                             size_t cap) {
  sfc_generator *g = NULL;
  sfc_error err;
  sfc_stats stats;
  const char *held = "held: ";
  /* Another doc-tables of this host (a second checkout's tests) may hold
   * the value for a moment: wait for it, 30 s at most. */
  sfc_status st = documents_value(layout, &g, &err);
  for (int i = 0; st == SFC_WORKER_UNAVAILABLE && i < 300; i++) {
    sfc_pause(100000);
    st = documents_value(layout, &g, &err);
  }
  if (st != SFC_OK) {
    fprintf(stderr, "doc-tables: a generator: %s\n", err.message);
    return NULL;
  }
  sfc_generator_stats(g, &stats);
  const char *guard = sfc_stats_text(&stats, SFC_STAT_GUARD);
  if (strncmp(guard, held, strlen(held)) != 0) {
    fprintf(stderr, "doc-tables: the generator is not guarded\n");
    sfc_generator_free(g);
    return NULL;
  }
  snprintf(claim, cap, "%s", guard + strlen(held));
  return g;
}

/* The second generator of the value, refused: its message in err. */
static int refused(const sfc_layout *layout, sfc_error *err) {
  sfc_generator *second = NULL;
  if (documents_value(layout, &second, err) == SFC_WORKER_UNAVAILABLE) return 0;
  sfc_generator_free(second);
  fprintf(stderr, "doc-tables: the guard let a second generator start\n");
  return 1;
}

/* Two live generators of one value: the second is refused, and its message
 * is the one the documents quote — held by another process (the CLI's
 * example) and by this one (the bindings'). The epoch is no preset's and no
 * test's, so that no other generator of the machine holds the claim. */
static int guard(void) {
  static const char *const columns[] = {"where", "node",    "pid",
                                        "claim", "message", NULL};
  sfc_layout layout;
  sfc_error err;
  char claim[256];
  if (sfc_layout_parse("time:41@1ms,datacenter:5,worker:5,seq:12",
                       1262304000017, &layout, &err) != SFC_OK) {
    fprintf(stderr, "doc-tables: the layout: %s\n", err.message);
    return 1;
  }
  header("guard", columns);
  /* In this process, the same generator again would take the value over
   * (a cell or a reload run twice): another epoch, the same integers, is
   * refused. */
  sfc_layout later = layout;
  later.epoch_ms++;
  sfc_generator *first = holder(&layout, claim, sizeof claim);
  if (!first || refused(&later, &err)) {
    sfc_generator_free(first);
    return 1;
  }
  refusal_row("this process", (long)getpid(), claim, err.message);
  sfc_generator_free(first);
#ifndef _WIN32
  /* A child holds it; it lets go when the parent closes its pipe. */
  int ready[2], done[2];
  if (pipe(ready) != 0 || pipe(done) != 0) return 1;
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(ready[0]), close(done[1]);
    sfc_generator *g = holder(&layout, claim, sizeof claim);
    size_t n = g ? strlen(claim) + 1 : 1;
    if (write(ready[1], g ? claim : "", n) != (ssize_t)n) _exit(1);
    char byte;
    while (read(done[0], &byte, 1) > 0)
      ;
    sfc_generator_free(g);
    _exit(0);
  }
  close(ready[1]), close(done[0]);
  /* One write of less than PIPE_BUF: read whole. */
  ssize_t got = read(ready[0], claim, sizeof claim - 1);
  claim[got > 0 ? got : 0] = '\0';
  int rc = !claim[0] || refused(&layout, &err);
  if (!rc) refusal_row("another process", (long)child, claim, err.message);
  close(done[1]), close(ready[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return rc || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
#else
  return 0;
#endif
}

static void encodings(void) {
  static const char *const columns[] = {"name",   "radix",   "width",
                                        "digits", "default", NULL};
  header("encodings", columns);
  const sfc_encoding_info *e;
  for (size_t i = 0; (e = sfc_encoding_at(i)); i++) {
    cell(e->name);
    cell_i64(e->radix);
    cell_i64(e->width);
    cell(e->digits);
    cell(e->fixed_by_default ? "fixed" : "shortest");
    end_row();
  }
}

/* The names of the core's small tables that bindings spell as types. */
static void names(void) {
  static const char *const columns[] = {"of", "name", NULL};
  header("names", columns);
  for (int k = 0; strcmp(sfc_field_kind_name((sfc_field_kind)k), "unknown");
       k++) {
    cell("field kind");
    cell(sfc_field_kind_name((sfc_field_kind)k));
    end_row();
  }
  for (int k = 0; strcmp(sfc_node_source_name((sfc_node_source)k), "unknown");
       k++) {
    cell("node source");
    cell(sfc_node_source_name((sfc_node_source)k));
    end_row();
  }
}

int main(void) {
  puts("# The tables of snowflake-c");
  options();
  rollbacks();
  statuses();
  facts("layout facts", sfc_layout_fact_at);
  facts("field facts", sfc_field_fact_at);
  facts("stats", sfc_stats_fact_at);
  facts("lease stats", sfc_lease_stats_fact_at);
  encodings();
  names();
  if (presets() || guard()) return 1;
  return fflush(stdout) == 0 ? 0 : 1;
}
