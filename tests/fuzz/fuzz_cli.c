/* libFuzzer harness: the CLI's argument and standard-input parsing.
 *
 * core/cli/snowflake-c.c is compiled into this harness with
 * -Dmain=sfc_cli_main. Input: argument tokens separated by '\n', then
 * optionally "\x01" and the bytes of standard input. The first token is the
 * command. Output goes to /dev/null; the exit status is not checked (any is
 * fine): the harness looks for crashes, leaks and undefined behaviour.
 *
 * Left out, so that one run stays short and leaves no files behind: --count
 * and -n (the default of one ID is kept) and --state-dir (it would create
 * directories anywhere). The CLI takes options by their whole names only. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sfc_cli_main(int argc, char **argv);

#define MAX_ARGS 48

static int is_name(const char *opt, size_t len, const char *full) {
  return len == strlen(full) && strncmp(opt, full, len) == 0;
}

/* Tokens the harness drops: see above. */
static int dropped(const char *tok) {
  if (tok[0] != '-' || tok[1] == '\0') return 0;
  if (tok[1] != '-') return strchr(tok, 'n') != NULL;
  const char *name = tok + 2;
  size_t len = strcspn(name, "=");
  return is_name(name, len, "count") || is_name(name, len, "state-dir");
}

static FILE *null_out;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  null_out = fopen("/dev/null", "w");
  if (!null_out) abort();
  /* The FILE pointers only: the sanitizers keep writing to fd 2. */
  stdout = null_out;
  stderr = null_out;
  unsetenv("SNOWFLAKE_WORKER");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  size_t args_len = size;
  const char *in = NULL;
  size_t in_len = 0;
  char *sep = memchr(buf, '\x01', size);
  if (sep) {
    *sep = '\0';
    args_len = (size_t)(sep - buf);
    in = sep + 1;
    in_len = size - args_len - 1;
  }
  char *argv[MAX_ARGS + 2];
  int argc = 0;
  argv[argc++] = "snowflake-c";
  char *p = buf, *end = buf + args_len;
  while (p <= end && argc < MAX_ARGS) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    if (nl) *nl = '\0';
    if (strlen(p) == (size_t)((nl ? nl : end) - p) && !dropped(p))
      argv[argc++] = p;
    if (!nl) break;
    p = nl + 1;
  }
  argv[argc] = NULL;

  FILE *input =
      in_len ? fmemopen((void *)in, in_len, "r") : fopen("/dev/null", "r");
  if (!input) {
    free(buf);
    return 0;
  }
  FILE *saved_stdin = stdin;
  stdin = input;
  sfc_cli_main(argc, argv);
  stdin = saved_stdin;
  fclose(input);
  free(buf);
  return 0;
}
