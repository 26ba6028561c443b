/* decode and convert: IDs from the arguments or from standard input. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An ID given as text: decimal, or in the encoding of --from. */
static sfc_status parse_given(const cli *c, const char *text, size_t len,
                              uint64_t *id, sfc_error *err) {
  return sfc_id_parse(text, len, c->from.set ? c->from.value : SFC_ENCODING_DEC,
                      id, err);
}

/* A UUIDv7: its canonical text, time and random bits, or its JSON. */
static int decode_uuid7(const cli *c, const char *text, size_t len) {
  sfc_error err;
  sfc_uuid7 u;
  if (sfc_uuid7_parse(text, len, &u, &err) != SFC_OK) return fail(&err);
  if (c->json) {
    char line[SFC_UUID7_JSON_MAX];
    sfc_uuid7_json(&u, line, sizeof line);
    puts(line);
    return 0;
  }
  char iso[SFC_ISO_MAX];
  sfc_format_iso(u.unix_ms, iso, sizeof iso);
  printf("%s  %s  rand_a=%u  rand_b=%" PRIu64 "\n", u.text, iso,
         (unsigned)u.rand_a, u.rand_b);
  return 0;
}

static int decode_one(const cli *c, const char *text, size_t len) {
  if (c->from.uuid7) return decode_uuid7(c, text, len);
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
  sfc_encoding to = c->to.set ? c->to.value : SFC_ENCODING_DEC;
  /* The encoding's default form (dec's plain number) unless asked. */
  unsigned flags = c->shortest ? SFC_FORMAT_SHORTEST
                   : c->fixed  ? SFC_FORMAT_FIXED
                               : 0;
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
  if (argc) {
    for (int i = 0; i < argc; i++)
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
          fputs(PROG ": out of memory reading standard input\n", stderr);
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

int cmd_decode(cli *c, int argc, char **argv) {
  return for_each_id(c, argc, argv, decode_one);
}

int cmd_convert(cli *c, int argc, char **argv) {
  return for_each_id(c, argc, argv, convert_one);
}
