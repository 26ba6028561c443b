/* The binding kit: node lists as every host splits them, the growing sink,
 * and JSON text escaped the one way. */
#include "check.h"

#include <string.h>

#include "snowflake_c_kit.h"

static void node_lists(void) {
  sfk_node_list list;
  sfc_error err;
  CHECK_STATUS(
      sfk_node_list_split(&list, "datacenter=1,,worker=3,", "--node", &err),
      SFC_OK, err);
  CHECK(list.count == 2, "two pairs, empty items skipped: %zu", list.count);
  CHECK_STATUS(sfk_node_list_values(&list, &err), SFC_OK, err);
  CHECK(strcmp(list.values[0].name, "datacenter") == 0 &&
            list.values[0].value == 1 && list.values[1].value == 3,
        "names and values in order");

  CHECK_STATUS(
      sfk_node_list_split(&list, "worker=3,oops", "snowflake_c.node", &err),
      SFC_INVALID_ARGUMENT, err);
  CHECK(strstr(err.message, "snowflake_c.node 'oops' is not NAME=VALUE"),
        "the item and the caller's name: %s", err.message);
  CHECK_STATUS(sfk_node_list_split(&list, "=3", "--node", &err),
               SFC_INVALID_ARGUMENT, err);

  char many[200] = "";
  for (int i = 0; i <= SFC_MAX_FIELDS; i++)
    snprintf(many + strlen(many), sizeof many - strlen(many), "%sf%d=1",
             i ? "," : "", i);
  CHECK_STATUS(sfk_node_list_split(&list, many, "--node", &err),
               SFC_INVALID_ARGUMENT, err);

  char long_text[SFK_NODE_TEXT_MAX + 8];
  memset(long_text, 'a', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  CHECK_STATUS(sfk_node_list_split(&list, long_text, "--node", &err),
               SFC_INVALID_ARGUMENT, err);
  CHECK(strstr(err.message, "at most"), "says the limit: %s", err.message);

  CHECK_STATUS(sfk_node_list_split(&list, "worker=-1", "--node", &err), SFC_OK,
               err);
  CHECK_STATUS(sfk_node_list_values(&list, &err), SFC_INVALID_ARGUMENT, err);
}

static void json_text(void) {
  sfk_buffer buf = {0};
  sfk_sink out = sfk_buffer_sink(&buf);
  sfk_json_text(&out, "a\"b\\c\n\x01z");
  CHECK(buf.data && strcmp(buf.data, "\"a\\\"b\\\\c\\u000a\\u0001z\"") == 0,
        "escaped: %s", buf.data);
  /* Grows past its first allocation, byte for byte. */
  for (int i = 0; i < 1000; i++)
    out.write(out.ctx, "0123456789", 10);
  size_t head = buf.len - 10000;
  CHECK(buf.len > 10000 &&
            memcmp(buf.data + head + 9990, "0123456789", 10) == 0,
        "grown to %zu bytes", buf.len);
  CHECK(!buf.failed && buf.data[buf.len] == '\0', "NUL-terminated");
  sfk_buffer_free(&buf);

  sfc_value id = {SFC_TYPE_UINT, 0, 18446744073709551615u, 0, NULL, 0, 0};
  sfk_json_value(&out, &id, sfk_is_id("max_id"));
  sfk_json_value(&out, &id, sfk_is_id("idle"));
  CHECK(strcmp(buf.data, "\"18446744073709551615\"18446744073709551615") == 0,
        "an ID is a string, another number is not: %s", buf.data);
  sfk_buffer_free(&buf);

  sfc_error err = {SFC_CLOCK_MOVED_BACKWARDS, "behind \"by\" 5 ms"};
  sfk_json_error(&out, &err);
  CHECK(strcmp(buf.data, "{\"error\":{\"kind\":\"ClockMovedBackwards\","
                         "\"message\":\"behind \\\"by\\\" 5 ms\"}}") == 0,
        "the error object: %s", buf.data);
  sfk_buffer_free(&buf);
}

int main(void) {
  node_lists();
  json_text();
  return check_summary();
}
