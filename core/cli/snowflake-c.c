/* snowflake-c — generate, decode and encode 64-bit time-ordered IDs. */
#define _GNU_SOURCE
#include "snowflake_c.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

static const char usage[] =
    "usage: snowflake-c COMMAND [OPTIONS] [ARGS]\n"
    "\n"
    "commands:\n"
    "  gen      generate IDs:          gen -n 5 --preset twitter --node "
    "datacenter=1,worker=3\n"
    "  decode   split IDs into parts:  decode --preset discord --json "
    "175928847299117063\n"
    "           (IDs from the arguments, or one per line on standard input;\n"
    "           --from ENC for IDs in another encoding)\n"
    "  convert  between string forms:  convert --to base62 "
    "175928847299117063\n"
    "                                  convert --from base62 0Czks0tP37X\n"
    "           (decimal unless --from/--to say otherwise; arguments or\n"
    "           standard input, like decode)\n"
    "  encode   build an ID:           encode --preset discord --time "
    "1462015105796 worker=1 process=0 seq=7\n"
    "  range    smallest and largest ID of a time interval [T0, T1):\n"
    "                                  range --preset twitter 2024-01-01 "
    "2024-01-02\n"
    "  layout   describe a layout:     layout --layout "
    "time:41@1ms,worker:10,seq:12 --epoch 2024-01-01\n"
    "  presets  list the presets\n"
    "\n"
    "options:\n"
    "  --preset NAME      default, twitter, discord, sonyflake, baidu, "
    "instagram\n"
    "                     (default: default)\n"
    "  --layout SPEC      fields, e.g. time:41@1ms,worker:10,seq:12\n"
    "  --epoch E          Unix ms or ISO-8601 UTC, with --layout\n"
    "  --node LIST        node values: worker=3,datacenter=1 (N, auto, host\n"
    "                     or env:NAME);\n"
    "                     unset fields come from SNOWFLAKE_<FIELD>\n"
    "  -n, --count N      IDs to generate (gen; default 1)\n"
    "  --time T           the time of encode: Unix ms or ISO-8601 UTC\n"
    "  --json             canonical JSON, one line per ID\n"
    "  --format ENC       gen: print IDs in dec, hex, base32, base36, base58 "
    "or\n"
    "                     base62, fixed width (sorts as the IDs do)\n"
    "  --from ENC         decode, convert: the encoding of the IDs given\n"
    "  --to ENC           convert: the encoding to print\n"
    "  --shortest         with --format or --to: no left padding\n"
    "  --stats            print the generator's counters to stderr (gen)\n"
    "  -h, --help         this text\n"
    "  -V, --version      the version\n"
    "\n"
    "generator options (gen), durations in ms or with a unit (1.5s, 800us):\n";

/* The generator options are the core's table: each is --NAME VALUE (words
 * joined by '-'); a flag (true/false) is --NAME, or --no-NAME when on by
 * default. */
static void print_usage(FILE *out) {
  fputs(usage, out);
  for (size_t i = 0; sfc_option_at(i); i++) {
    const sfc_option_info *o = sfc_option_at(i);
    char flag[48];
    bool on = o->type == SFC_TYPE_BOOL && strcmp(o->default_text, "true") == 0;
    snprintf(flag, sizeof flag, "--%s%s", on ? "no-" : "", o->name);
    for (char *p = flag; *p; p++)
      if (*p == '_') *p = '-';
    fprintf(out, "  %s%s", flag,
            o->type == SFC_TYPE_DURATION ? " MS"
            : o->type == SFC_TYPE_PATH   ? " DIR"
            : o->type == SFC_TYPE_CHOICE ? " NAME"
                                         : "");
    for (int k = 0; o->type == SFC_TYPE_CHOICE && o->choices[k]; k++)
      fprintf(out, "%s%s", k ? ", " : ": ", o->choices[k]);
    fprintf(out, "\n      %s%s (default: %s)\n",
            on ? "turns off what is on by default: " : "", o->doc,
            o->default_text);
  }
  fputs("  --monotonic\n      --time-source monotonic\n", out);
}

#define OPTION_MAX 32 /* room for the core's option table */

typedef struct cli {
  const char *preset, *spec, *epoch, *node, *time;
  const char *option[OPTION_MAX]; /* generator options as given, by index */
  long long count;
  bool json, stats, shortest;
  /* --format, --from, --to: given or not, and the encoding */
  bool format_set, from_set, to_set;
  sfc_encoding format, from, to;
  sfc_layout layout;
} cli;

static int fail(const sfc_error *err) {
  fprintf(stderr, "snowflake-c: %s: %s\n", sfc_status_name(err->status),
          err->message);
  return 1;
}

static int usage_error(const char *what) {
  fprintf(stderr, "snowflake-c: %s\n(see snowflake-c --help)\n", what);
  return 2;
}

static bool parse_count(const char *text, long long min, long long max,
                        long long *out) {
  char *end;
  long long v = strtoll(text, &end, 10);
  if (!*text || *end || v < min || v > max) return false;
  *out = v;
  return true;
}

/* getopt_long's codes: the core's options from OPTION_CODE up; a flag's
 * --no-NAME is OPTION_CODE + OPTION_MAX up. */
enum { OPTION_CODE = 1000 };

static int parse_options(int argc, char **argv, cli *c) {
  static const struct option fixed[] = {
      {"preset", required_argument, 0, 'p'},
      {"layout", required_argument, 0, 'l'},
      {"epoch", required_argument, 0, 'e'},
      {"node", required_argument, 0, 'N'},
      {"count", required_argument, 0, 'n'},
      {"monotonic", no_argument, 0, 'M'},
      {"time", required_argument, 0, 't'},
      {"json", no_argument, 0, 'j'},
      {"stats", no_argument, 0, 'S'},
      {"format", required_argument, 0, 'f'},
      {"from", required_argument, 0, 'F'},
      {"to", required_argument, 0, 'T'},
      {"shortest", no_argument, 0, 'H'},
      {"help", no_argument, 0, 'h'},
  };
  enum { FIXED = sizeof fixed / sizeof fixed[0] };
  static char names[2 * OPTION_MAX][48];
  struct option longs[FIXED + 2 * OPTION_MAX + 1];
  memcpy(longs, fixed, sizeof fixed);
  size_t n = FIXED;
  for (size_t i = 0; sfc_option_at(i) && i < OPTION_MAX; i++) {
    const sfc_option_info *o = sfc_option_at(i);
    for (int no = 0; no <= (o->type == SFC_TYPE_BOOL); no++) {
      char *name = names[2 * i + (size_t)no];
      snprintf(name, sizeof names[0], "%s%s", no ? "no-" : "", o->name);
      for (char *p = name; *p; p++)
        if (*p == '_') *p = '-';
      longs[n++] = (struct option){
          name, o->type == SFC_TYPE_BOOL ? no_argument : required_argument, 0,
          OPTION_CODE + (no ? OPTION_MAX : 0) + (int)i};
    }
  }
  longs[n] = (struct option){0, 0, 0, 0};
  int opt;
  sfc_error err;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, "+n:h", longs, NULL)) != -1) {
    switch (opt) {
    case 'p':
      c->preset = optarg;
      break;
    case 'l':
      c->spec = optarg;
      break;
    case 'e':
      c->epoch = optarg;
      break;
    case 'N':
      c->node = optarg;
      break;
    case 't':
      c->time = optarg;
      break;
    case 'j':
      c->json = true;
      break;
    case 'M':
      c->option[SFC_OPTION_TIME_SOURCE] = "monotonic";
      break;
    case 'S':
      c->stats = true;
      break;
    case 'H':
      c->shortest = true;
      break;
    case 'f':
    case 'F':
    case 'T': {
      sfc_encoding *enc = opt == 'f'   ? &c->format
                          : opt == 'F' ? &c->from
                                       : &c->to;
      *(opt == 'f'   ? &c->format_set
        : opt == 'F' ? &c->from_set
                     : &c->to_set) = true;
      if (sfc_encoding_by_name(optarg, strlen(optarg), enc, &err) != SFC_OK)
        return fail(&err);
      break;
    }
    case 'n':
      if (!parse_count(optarg, 0, 1000000000000LL, &c->count))
        return usage_error("--count takes a whole number from 0");
      break;
    case 'h':
      print_usage(stdout);
      exit(0);
    default: {
      if (opt >= OPTION_CODE && opt < OPTION_CODE + 2 * OPTION_MAX) {
        int i = (opt - OPTION_CODE) % OPTION_MAX;
        bool no = opt - OPTION_CODE >= OPTION_MAX;
        c->option[i] = sfc_option_at((size_t)i)->type == SFC_TYPE_BOOL
                           ? (no ? "false" : "true")
                           : optarg;
        break;
      }
      char msg[200];
      snprintf(msg, sizeof msg, "unknown or incomplete option '%s'",
               argv[optind - 1]);
      return usage_error(msg);
    }
    }
  }
  if (c->json && c->format_set)
    return usage_error("give --format or --json, not both");
  /* A mistake in combining --preset, --layout and --epoch is a usage
   * error; a bad preset, spec or epoch is the layout's. */
  sfc_status st =
      sfc_layout_resolve(NULL, c->preset, c->spec, c->epoch, &c->layout, &err);
  if (st == SFC_INVALID_ARGUMENT) return usage_error(err.message);
  return st == SFC_OK ? 0 : fail(&err);
}

/* "worker=3,datacenter=1" → values; names point into `text`, which is
 * modified. */
static int parse_pairs(char *text, const char *what, sfc_node_value *out,
                       size_t *count) {
  *count = 0;
  for (char *item = strtok(text, ","); item; item = strtok(NULL, ",")) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item || *count == SFC_MAX_FIELDS) {
      fprintf(stderr, "snowflake-c: %s '%s' is not NAME=VALUE\n", what, item);
      return 2;
    }
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

/* The core's stats table on one line: name=value, then each node field as
 * field=value(source). */
static void print_stats(const sfc_generator *g) {
  sfc_stats s;
  sfc_generator_stats(g, &s);
  const sfc_fact_info *f;
  for (size_t i = 0; (f = sfc_stats_fact_at(i)); i++) {
    sfc_value v;
    sfc_stats_fact(&s, i, &v);
    if (v.type == SFC_TYPE_MAP) continue;
    fprintf(stderr, "%s%s=", i ? " " : "", f->name);
    print_stat(&v);
  }
  for (unsigned j = 0; j < s.node_count; j++)
    fprintf(stderr, " %s=%" PRIu64 "(%s)", s.node_names[j], s.node_values[j],
            sfc_node_source_name(s.node_sources[j]));
  fputc('\n', stderr);
}

static int cmd_gen(cli *c, int argc, char **argv) {
  (void)argv;
  if (optind < argc) return usage_error("gen takes no arguments");
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_node_value node[SFC_MAX_FIELDS];
  char *node_text = c->node ? strdup(c->node) : NULL;
  sfc_error err;
  int rc = 0;
  if (node_text) rc = parse_pairs(node_text, "--node", node, &opts.node_count);
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
  if (warning) fprintf(stderr, "snowflake-c: warning: %s\n", warning);

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
  if (c->stats) print_stats(g);
  sfc_generator_free(g);
  if (fflush(stdout) != 0 && rc == 0) {
    perror("snowflake-c: writing output");
    rc = 1;
  }
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
  if (optind < argc) {
    for (int i = optind; i < argc; i++)
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
          fputs("snowflake-c: out of memory reading standard input\n", stderr);
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
  sfc_error err;
  if (!c->time) return usage_error("encode needs --time (Unix ms or ISO)");
  int64_t ms;
  if (parse_time(c->time, &ms, &err)) return fail(&err);
  sfc_node_value fields[SFC_MAX_FIELDS];
  size_t count = 0;
  for (int i = optind; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) return usage_error("encode takes fields as NAME=VALUE");
    if (count == SFC_MAX_FIELDS) return usage_error("too many fields");
    *eq = '\0';
    size_t n = strlen(eq + 1);
    uint64_t v;
    if (sfc_id_parse(eq + 1, n, SFC_ENCODING_DEC, &v, &err) != SFC_OK ||
        v > INT64_MAX) {
      fprintf(stderr,
              "snowflake-c: InvalidArgument: field '%s' has value '%s': give "
              "a whole number from 0\n",
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
  if (argc - optind != 2) return usage_error("range takes two times: T0 T1");
  sfc_error err;
  int64_t t0, t1;
  uint64_t lo, hi;
  if (parse_time(argv[optind], &t0, &err) ||
      parse_time(argv[optind + 1], &t1, &err))
    return fail(&err);
  if (sfc_range(&c->layout, t0, t1, &lo, &hi, &err) != SFC_OK)
    return fail(&err);
  if (c->json)
    printf("{\"min\":\"%" PRIu64 "\",\"max\":\"%" PRIu64 "\"}\n", lo, hi);
  else
    printf("%" PRIu64 " %" PRIu64 "\n", lo, hi);
  return 0;
}

/* One JSON value of a fact: integers as decimal strings (JSON readers lose
 * precision above 2^53), as everywhere in the project's JSON. */
static void print_value(const sfc_value *v) {
  switch (v->type) {
  case SFC_TYPE_TEXT:
    printf("\"%s\"", v->text);
    break;
  case SFC_TYPE_INT:
    printf("\"%" PRId64 "\"", v->i);
    break;
  case SFC_TYPE_UINT:
    printf("\"%" PRIu64 "\"", v->u);
    break;
  case SFC_TYPE_DOUBLE:
    printf("%.17g", v->d);
    break;
  default:
    fputs("null", stdout);
  }
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
      print_value(&v);
      continue;
    }
    for (unsigned j = 0; j < l->field_count; j++) {
      const sfc_fact_info *g;
      for (size_t k = 0; (g = sfc_field_fact_at(k)); k++) {
        sfc_value fv;
        sfc_field_fact(&l->fields[j], k, &fv);
        printf("%s\"%s\":", k ? "," : j ? ",{" : "[{", g->name);
        print_value(&fv);
      }
      putchar('}');
    }
    putchar(']');
  }
  puts("}");
}

static int cmd_layout(cli *c, int argc, char **argv) {
  (void)argv;
  if (optind < argc) return usage_error("layout takes no arguments");
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
  if (optind < argc) return usage_error("presets takes no arguments");
  for (size_t i = 0; i < sfc_preset_count(); i++) {
    const char *name, *spec;
    int64_t epoch;
    sfc_preset_at(i, &name, &spec, &epoch);
    if (c->json)
      printf("{\"name\":\"%s\",\"spec\":\"%s\",\"epoch_ms\":\"%" PRId64 "\"}\n",
             name, spec, epoch);
    else
      printf("%-10s %-42s %" PRId64 "\n", name, spec, epoch);
  }
  return 0;
}

int main(int argc, char **argv) {
#if defined(_WIN32)
  /* "\n", not "\r\n": the same bytes on every platform. */
  _setmode(_fileno(stdout), _O_BINARY);
#endif
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    print_usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
    printf("snowflake-c %s\n", sfc_version_string());
    return 0;
  }
  static const struct {
    const char *name;
    int (*run)(cli *, int, char **);
    const char *takes; /* of --format (f), --from (F), --to (T) */
  } commands[] = {{"gen", cmd_gen, "f"},          {"decode", cmd_decode, "F"},
                  {"convert", cmd_convert, "FT"}, {"encode", cmd_encode, ""},
                  {"range", cmd_range, ""},       {"layout", cmd_layout, ""},
                  {"presets", cmd_presets, ""}};
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(cmd, commands[i].name) != 0) continue;
    cli c;
    memset(&c, 0, sizeof c);
    c.count = 1;
    int rc = parse_options(argc - 1, argv + 1, &c);
    if (rc) return rc;
    const char *takes = commands[i].takes;
    if ((c.format_set && !strchr(takes, 'f')) ||
        (c.from_set && !strchr(takes, 'F')) ||
        (c.to_set && !strchr(takes, 'T'))) {
      char msg[160];
      snprintf(msg, sizeof msg, "%s takes none of %s", cmd,
               strchr(takes, 'f')   ? "--from, --to"
               : strchr(takes, 'T') ? "--format"
               : strchr(takes, 'F') ? "--format, --to"
                                    : "--format, --from, --to");
      return usage_error(msg);
    }
    if (c.shortest && !c.format_set && !c.to_set)
      return usage_error("--shortest goes with --format or --to");
    optind += 1;
    return commands[i].run(&c, argc, argv);
  }
  char msg[160];
  snprintf(msg, sizeof msg, "unknown command '%s'", cmd);
  return usage_error(msg);
}
