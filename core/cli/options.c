/* The CLI's own options as rows, every spelling of every option (the core's
 * generator options after them), and the texts the help, the manual and the
 * completions print about each. */
#include "cli.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Each row: name, short name, the value's placeholder, what a completion
 * offers, the doc, and what the option does to the command line's state. */
#define TEXT(field) SET_TEXT, offsetof(cli, field), NULL
#define FLAG(field) SET_FLAG, offsetof(cli, field), NULL
#define ENCODING(field) SET_ENCODING, offsetof(cli, field), NULL

const option_row own_options[OPT_OWN] = {
    [OPT_PRESET] = {"preset", 0, "NAME", VALUE_PRESET,
                    "the layout of a preset: {presets}. Without --preset or "
                    "--layout: SNOWFLAKE_PRESET, or SNOWFLAKE_LAYOUT with "
                    "SNOWFLAKE_EPOCH; else gen and serve make IDs of the "
                    "default preset, and the commands that read IDs refuse",
                    TEXT(preset)},
    [OPT_LAYOUT] = {"layout", 0, "SPEC", VALUE_ANY,
                    "a layout of your own, its fields most significant "
                    "first: time:41@1ms,worker:10,seq:12 (with --epoch)",
                    TEXT(spec)},
    [OPT_EPOCH] = {"epoch", 0, "E", VALUE_ANY,
                   "the epoch of --layout: Unix ms or ISO-8601 UTC "
                   "(2024-01-01, 2024-01-01T00:00:00Z)",
                   TEXT(epoch)},
    [OPT_NODE] = {"node", 0, "LIST", VALUE_ANY,
                  "node values, FIELD=VALUE,...: a number, auto (the first "
                  "free value of a pool, with --state-dir), host (the "
                  "ordinal at the end of the host name) or env:NAME (the "
                  "environment variable NAME); a field not given is read "
                  "from SNOWFLAKE_<FIELD>",
                  TEXT(node)},
    [OPT_COUNT] = {"count", 'n', "N", VALUE_ANY,
                   "how many IDs to generate (default: 1)", SET_COUNT,
                   offsetof(cli, count), NULL},
    [OPT_TIME] = {"time", 0, "T", VALUE_ANY,
                  "the ID's time: Unix ms or ISO-8601 UTC", TEXT(time)},
    [OPT_JSON] = {"json", 0, NULL, VALUE_ANY,
                  "print JSON: IDs as decimal strings, every other number "
                  "as a JSON number",
                  FLAG(json)},
    [OPT_FORMAT] = {"format", 0, "ENC", VALUE_ENCODING,
                    "print the IDs in ENC: {encodings}; dec as the plain "
                    "number, the others fixed width, so that they sort as "
                    "the IDs do",
                    ENCODING(format)},
    [OPT_FROM] = {"from", 0, "ENC", VALUE_FROM,
                  "the encoding of the IDs given: {encodings} (default: "
                  "dec); or, for decode, uuid7: the IDs are UUIDv7s "
                  "(RFC 9562), 8-4-4-4-12 or 32 hex digits, split into "
                  "their time and random bits, with no layout",
                  ENCODING(from)},
    [OPT_TO] = {"to", 0, "ENC", VALUE_ENCODING,
                "the encoding to print: {encodings}; dec as the plain "
                "number, the others fixed width (default: dec)",
                ENCODING(to)},
    [OPT_SHORTEST] = {"shortest", 0, NULL, VALUE_ANY,
                      "with --format or --to: no left padding", FLAG(shortest)},
    [OPT_FIXED] = {"fixed", 0, NULL, VALUE_ANY,
                   "with --format or --to: left-padded to the fixed width, "
                   "dec's 20 digits too, so that the text sorts as the IDs "
                   "do",
                   FLAG(fixed)},
    [OPT_STATS] = {"stats", 0, NULL, VALUE_ANY,
                   "print the generator's counters to standard error when "
                   "done: one line of NAME=VALUE, or one JSON object with "
                   "--json",
                   FLAG(stats)},
    [OPT_MONOTONIC] = {"monotonic", 0, NULL, VALUE_ANY,
                       "the same as --time-source monotonic", SET_CORE,
                       SFC_OPTION_TIME_SOURCE, "monotonic"},
    [OPT_SCHEMA] = {"schema", 0, "NAME", VALUE_ANY,
                    "the schema that holds the functions (default: "
                    "snowflake_c)",
                    TEXT(schema)},
    [OPT_LISTEN] = {"listen", 0, "ADDR", VALUE_ANY,
                    "the address to serve on: HOST:PORT or [IPV6]:PORT, port "
                    "0 for any free port (default: 127.0.0.1:8080)",
                    TEXT(listen)},
    [OPT_MAX_COUNT] = {"max-count", 0, "N", VALUE_ANY,
                       "the most IDs one request may take "
                       "(default: 100000)",
                       SET_COUNT, offsetof(cli, max_count), NULL},
    [OPT_TOKEN] = {"token", 0, "TOKEN", VALUE_ANY,
                   "require Authorization: Bearer TOKEN on every request "
                   "but /healthz and /readyz (default: SNOWFLAKE_TOKEN, else "
                   "none)",
                   TEXT(token)},
    [OPT_MAX_CONNECTIONS] = {"max-connections", 0, "N", VALUE_ANY,
                             "the most connections served at once (default: "
                             "1024)",
                             SET_COUNT, offsetof(cli, max_connections), NULL},
    [OPT_IDLE_TIMEOUT] = {"idle-timeout", 0, "S", VALUE_ANY,
                          "close a connection idle for S seconds (default: "
                          "60)",
                          SET_COUNT, offsetof(cli, idle_timeout), NULL},
    [OPT_LEASE] = {"lease", 0, "URL", VALUE_ANY,
                   "the PostgreSQL of a node value 'lease' (--node "
                   "worker=lease): a libpq URL or key=value text (default: "
                   "SNOWFLAKE_LEASE_URL)",
                   TEXT(lease)},
    [OPT_MAN] = {"man", 0, NULL, VALUE_ANY,
                 "print the manual page (roff): snowflake-c help --man | "
                 "man -l -",
                 FLAG(man)},
    [OPT_HELP] = {"help", 'h', NULL, VALUE_ANY,
                  "print the command's usage, options and examples", SET_HELP,
                  0, NULL},
};

size_t option_views(option_view *out) {
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
               : o->type == SFC_TYPE_TEXT   ? "TEXT"
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

/* Appends to buf (cap bytes, NUL-terminated) what fits. */
void append(char *buf, size_t cap, const char *text) {
  size_t n = strlen(buf);
  if (n + 1 < cap) snprintf(buf + n, cap - n, "%s", text);
}

void append_presets(char *buf, size_t cap) {
  for (size_t i = 0; i < sfc_preset_count(); i++) {
    const char *name, *spec;
    int64_t epoch;
    sfc_preset_at(i, &name, &spec, &epoch);
    if (i) append(buf, cap, ", ");
    append(buf, cap, name);
  }
}

void append_encodings(char *buf, size_t cap) {
  for (int i = 0; i < SFC_ENCODING_COUNT; i++) {
    if (i) append(buf, cap, ", ");
    append(buf, cap, sfc_encoding_name((sfc_encoding)i));
  }
}

/* The whole doc of an option, in one line. */
void option_doc(const option_view *v, char *buf, size_t cap) {
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
void option_brief(const option_view *v, char *buf, size_t cap) {
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
void option_synopsis(const option_view *v, char *buf, size_t cap) {
  char dashes[4] = "";
  if (v->short_name) snprintf(dashes, sizeof dashes, "-%c", v->short_name);
  snprintf(buf, cap, "%s%s--%s%s%s", dashes, v->short_name ? ", " : "", v->name,
           v->arg ? " " : "", v->arg ? v->arg : "");
}
