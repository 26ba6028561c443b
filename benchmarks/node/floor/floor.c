/* The floor of the design for Node.js: a Node-API function doing what
 * Generator.nextId() does at the least (benchmarks/floor/floor.h) and
 * returning the ID as a BigInt, as the addon does; and the floor of the
 * string forms: a BigInt to a string of a given length (its low bits as
 * hex digits) and a string back to a BigInt (its bytes summed), the least a
 * Node-API function can do to turn an ID into text and back. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <node_api.h>
#include <stdlib.h>

#include "floor.h"

static napi_value Next(napi_env env, napi_callback_info info) {
  void *data = NULL;
  napi_value out = NULL;
  if (napi_get_cb_info(env, info, NULL, NULL, NULL, &data) != napi_ok ||
      napi_create_bigint_uint64(env, floor_next(data), &out) != napi_ok)
    napi_throw_error(env, NULL, "sfc_floor: call failed");
  return out;
}

static void Free(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

/* text(id, width) → a string of `width` (≤ 20) characters */
static napi_value Text(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], out = NULL;
  uint64_t id = 0;
  uint32_t width = 0;
  bool lossless = false;
  char buf[20];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok ||
      napi_get_value_bigint_uint64(env, argv[0], &id, &lossless) != napi_ok ||
      napi_get_value_uint32(env, argv[1], &width) != napi_ok || width > 20) {
    napi_throw_type_error(env, NULL, "sfc_floor: text(id, width)");
    return NULL;
  }
  for (uint32_t i = width; i-- > 0; id >>= 4)
    buf[i] = "0123456789abcdef"[id & 15];
  if (napi_create_string_latin1(env, buf, width, &out) != napi_ok)
    napi_throw_error(env, NULL, "sfc_floor: text failed");
  return out;
}

/* id(text) → a bigint from the text's bytes */
static napi_value Id(napi_env env, napi_callback_info info) {
  size_t argc = 1, len = 0;
  napi_value argv[1], out = NULL;
  char buf[24];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok ||
      napi_get_value_string_latin1(env, argv[0], buf, sizeof buf, &len) !=
          napi_ok) {
    napi_throw_type_error(env, NULL, "sfc_floor: id(text)");
    return NULL;
  }
  uint64_t id = 0;
  for (size_t i = 0; i < len; i++)
    id = id * 31 + (unsigned char)buf[i];
  if (napi_create_bigint_uint64(env, id, &out) != napi_ok)
    napi_throw_error(env, NULL, "sfc_floor: id failed");
  return out;
}

/* create(epochMs, nodeBits, seqBits, node) → { next() → bigint } */
static napi_value Create(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  int64_t epoch_ms = 0;
  uint32_t node_bits = 0, seq_bits = 0, node = 0;
  napi_value fn = NULL, obj = NULL;
  floor_gen *f = malloc(sizeof *f);
  if (!f || napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok ||
      argc != 4 || napi_get_value_int64(env, argv[0], &epoch_ms) != napi_ok ||
      napi_get_value_uint32(env, argv[1], &node_bits) != napi_ok ||
      napi_get_value_uint32(env, argv[2], &seq_bits) != napi_ok ||
      napi_get_value_uint32(env, argv[3], &node) != napi_ok || seq_bits < 1 ||
      node_bits > 31 || node_bits + seq_bits > 62 || node >> node_bits) {
    free(f);
    napi_throw_type_error(
        env, NULL, "sfc_floor: create(epochMs, nodeBits, seqBits, node)");
    return NULL;
  }
  floor_init(f, epoch_ms, node_bits, seq_bits, node);
  if (napi_create_function(env, "next", NAPI_AUTO_LENGTH, Next, f, &fn) !=
          napi_ok ||
      napi_add_finalizer(env, fn, f, Free, NULL, NULL) != napi_ok) {
    free(f);
    napi_throw_error(env, NULL, "sfc_floor: cannot create next()");
    return NULL;
  }
  if (napi_create_object(env, &obj) != napi_ok ||
      napi_set_named_property(env, obj, "next", fn) != napi_ok) {
    napi_throw_error(env, NULL, "sfc_floor: cannot create the object");
    return NULL;
  }
  return obj;
}

NAPI_MODULE_INIT() {
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = {{"create", Create}, {"text", Text}, {"id", Id}};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
    napi_value f = NULL;
    if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn,
                             NULL, &f) != napi_ok ||
        napi_set_named_property(env, exports, fns[i].name, f) != napi_ok)
      return NULL;
  }
  return exports;
}
