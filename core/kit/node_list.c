/* Node lists, "datacenter=1,worker=3": split once here for every host. */
#include <string.h>

#include "snowflake_c_kit.h"

static sfc_status refuse(sfc_error *err, const char *what, const char *item) {
  err->status = SFC_INVALID_ARGUMENT;
  snprintf(err->message, sizeof err->message,
           "%s '%.200s' is not NAME=VALUE (give worker=3 or "
           "datacenter=1,worker=3).",
           what, item);
  return SFC_INVALID_ARGUMENT;
}

sfc_status sfk_node_list_split(sfk_node_list *list, const char *text,
                               const char *what, sfc_error *err) {
  size_t len = strlen(text);
  list->count = 0;
  if (len >= sizeof list->text) {
    err->status = SFC_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message,
             "%s is %zu bytes long; a node list has at most %zu.", what, len,
             sizeof list->text - 1);
    return SFC_INVALID_ARGUMENT;
  }
  memcpy(list->text, text, len + 1);
  char *item = list->text, *end = list->text + len;
  while (item < end) {
    char *comma = strchr(item, ',');
    if (!comma) comma = end;
    *comma = '\0';
    if (*item) {
      char *eq = strchr(item, '=');
      if (!eq || eq == item || list->count == SFC_MAX_FIELDS)
        return refuse(err, what, item);
      *eq = '\0';
      list->values[list->count].name = item;
      list->value_text[list->count++] = eq + 1;
    }
    item = comma + 1;
  }
  return SFC_OK;
}

sfc_status sfk_node_list_values(sfk_node_list *list, sfc_error *err) {
  for (size_t i = 0; i < list->count; i++) {
    const char *text = list->value_text[i];
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, text, strlen(text), 0};
    sfc_status st =
        sfc_node_value_set(&list->values[i], list->values[i].name, &v, err);
    if (st != SFC_OK) return st;
  }
  return SFC_OK;
}
