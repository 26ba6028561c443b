// Node-API glue for snowflake-c: the primitives that node/api.js takes from a
// backend (listed there). api.js checks every argument and writes every
// message of its own; this converts JavaScript values to the core's types and
// back, and turns an sfc_status into the matching error class of
// node/errors.js. Every decision about layouts, IDs and time is the core's.
//
// Context-aware: all state lives in the per-environment Addon instance (the
// error classes, the table of generators) or in objects owned by JavaScript
// values, so the addon loads in any number of worker threads.
#include <napi.h>
#include <snowflake_c.h>
extern "C" {
#include <snowflake_c_host.h>
}

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr napi_type_tag kLayoutTag = {0x5f1c0d3e5b9f4a21ULL,
                                      0x9e02c4b6f1d83a57ULL};

struct GenBox;

// nextId()'s exchange with JavaScript, the memory of the ArrayBuffer
// `nextIo`: api.js writes the generator's slot, calls generatorNext() and
// reads the ID, so that the call passes no argument and makes no BigInt here
// (napi_create_bigint_uint64 cost more than the rest of the call; V8's
// optimised code reads a BigUint64Array in place). api.js knows the offsets.
struct NextIo {
  uint64_t id;   // out: the ID issued, at byte 0
  uint32_t slot; // in: the generator's slot, at byte 8
  uint32_t unused;
};

// The environment's live generators by slot: generatorNext() is one native
// function for all of them, so that the call site of nextId() sees a single
// target (V8 stops optimising a call that sees several). Shared by the
// Addon, that function, nextIo and every box, so that no finalizer outlives
// it, whatever order the environment's teardown runs them in.
struct GenTable {
  std::vector<GenBox *> boxes; // nullptr where a slot is free
  std::vector<uint32_t> free;
  NextIo own_io{};
  // &own_io under an external ArrayBuffer; where the runtime allows none
  // (a V8 sandbox), a plain ArrayBuffer's memory, held by `io_buffer` and
  // checked for detachment on every call.
  NextIo *io = &own_io;
  napi_ref io_buffer = nullptr;
};

class Addon : public Napi::Addon<Addon> {
public:
  Addon(Napi::Env env, Napi::Object exports);

  // Error classes from errors.js, indexed by sfc_status.
  Napi::FunctionReference error_classes[SFC_STATUS_COUNT];
  std::shared_ptr<GenTable> generators = std::make_shared<GenTable>();

private:
  Napi::Value SetErrorClasses(const Napi::CallbackInfo &info);
};

// --- Errors ----------------------------------------------------------------

// Builds the JavaScript error for `status`: an instance of the class that
// errors.js registered for it (which sets `code`), else a plain Error.
Napi::Object MakeError(Napi::Env env, sfc_status status, const char *message) {
  Addon *addon = env.GetInstanceData<Addon>();
  if (addon != nullptr && status > SFC_OK && status < SFC_STATUS_COUNT &&
      !addon->error_classes[status].IsEmpty()) {
    return addon->error_classes[status].New({Napi::String::New(env, message)});
  }
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", sfc_status_name(status));
  return error.Value();
}

[[noreturn]] void Throw(Napi::Env env, sfc_status status, const char *message) {
  // The options as JavaScript names them: stateDir, not state_dir.
  char said[2 * SFC_MESSAGE_MAX];
  if (sfc_text_in_terms(message, SFC_TERMS_CAMEL, said, sizeof said) <
      sizeof said)
    message = said;
  throw Napi::Error(env, MakeError(env, status, message));
}

[[noreturn]] void Throw(Napi::Env env, const sfc_error &err) {
  Throw(env, err.status, err.message);
}

// A core call's status: anything but SFC_OK throws the core's error.
void Must(Napi::Env env, sfc_status status, const sfc_error &err) {
  if (status != SFC_OK) {
    Throw(env, err);
  }
}

// What api.js never passes: a misuse of the addon itself.
[[noreturn]] void Invalid(Napi::Env env, const std::string &message) {
  Throw(env, SFC_INVALID_ARGUMENT, message.c_str());
}

// --- Conversions -----------------------------------------------------------
// api.js hands over values it has checked: the conversions only convert (a
// value of another type still fails, as a TypeError of Node-API's).

// An ID: a bigint of 0..2^64 - 1 or a safe non-negative integer Number.
uint64_t U64(napi_env env, napi_value value) {
  uint64_t u = 0;
  bool lossless = false; // api.js checked the range
  if (napi_get_value_bigint_uint64(env, value, &u, &lossless) == napi_ok) {
    return u; // one call, not a typeof first: IDs are bigints on hot paths
  }
  int64_t n = 0; // a safe integer Number
  napi_get_value_int64(env, value, &n);
  return static_cast<uint64_t>(n);
}

uint64_t U64(const Napi::Value &value) {
  return U64(value.Env(), value);
}

// A time: a bigint of int64 or a safe integer Number.
int64_t I64(const Napi::Value &value) {
  if (value.IsBigInt()) {
    bool lossless = false;
    return value.As<Napi::BigInt>().Int64Value(&lossless);
  }
  return value.As<Napi::Number>().Int64Value();
}

std::string Text(const Napi::Value &value) {
  return value.As<Napi::String>().Utf8Value();
}

// An sfc_value row of api.js, [type, i, u, d, text]; a text is kept in
// `keep`, which must outlive the value (a path is held by pointer until
// sfc_generator_new).
sfc_value CoreValue(const Napi::Value &value, std::deque<std::string> &keep) {
  Napi::Array row = value.As<Napi::Array>();
  sfc_value v{};
  v.type = static_cast<sfc_type>(row.Get(0u).As<Napi::Number>().Int32Value());
  v.i = I64(row.Get(1u));
  v.u = U64(row.Get(2u));
  v.d = row.Get(3u).As<Napi::Number>().DoubleValue();
  if (Napi::Value text = row.Get(4u); text.IsString()) {
    keep.push_back(Text(text));
    v.text = keep.back().c_str();
    v.len = keep.back().size();
  }
  return v;
}

// An array of the values given: a table's row, a call's results.
Napi::Array Row(Napi::Env env, std::initializer_list<napi_value> values) {
  Napi::Array row = Napi::Array::New(env, values.size());
  uint32_t i = 0;
  for (napi_value value : values) {
    row.Set(i++, value);
  }
  return row;
}

Napi::Value Num(Napi::Env env, double value) {
  return Napi::Number::New(env, value);
}

Napi::Value Str(Napi::Env env, const char *text) {
  return Napi::String::New(env, text);
}

// Every napi_status is checked: a failure becomes the pending JavaScript
// exception (or one built from the last error) and unwinds as Napi::Error.
void Check(Napi::Env env, napi_status status) {
  if (status != napi_ok) {
    throw Napi::Error::New(env);
  }
}

// --- The kit's host ----------------------------------------------------------
// The binding kit (core/kit/snowflake_c_host.h) walks the core's tables into
// JavaScript values through these primitives: a list is an Array, and so is
// a map, of [key, value] pairs in the core's order (api.js names them in its
// casing); UINT is a bigint (api.js narrows counters). Plain Node-API calls:
// no C++ exception may cross the kit's C; a failure leaves JavaScript's
// exception pending, which Out() throws.

// The primitives' context: the environment, and the texts `in` read, which
// live until the call returns.
struct Host {
  napi_env env;
  std::deque<std::string> keep;
};

napi_env EnvOf(void *ctx) {
  return static_cast<Host *>(ctx)->env;
}

int HostOut(void *ctx, const sfc_value *v, sfk_obj *out) {
  napi_env env = EnvOf(ctx);
  napi_value made = nullptr;
  napi_status status;
  switch (v->type) {
  case SFC_TYPE_BOOL:
    status = napi_get_boolean(env, v->i != 0, &made);
    break;
  case SFC_TYPE_INT:
    status = napi_create_double(env, static_cast<double>(v->i), &made);
    break;
  case SFC_TYPE_UINT:
    status = napi_create_bigint_uint64(env, v->u, &made);
    break;
  case SFC_TYPE_DOUBLE:
    status = napi_create_double(env, v->d, &made);
    break;
  default:
    status = v->type == SFC_TYPE_TEXT && v->text != nullptr
                 ? napi_create_string_utf8(env, v->text, v->len, &made)
                 : napi_get_null(env, &made);
  }
  *out = made;
  return status;
}

int HostList(void *ctx, sfk_obj *out) {
  napi_value list = nullptr;
  napi_status status = napi_create_array(EnvOf(ctx), &list);
  *out = list;
  return status;
}

int HostPush(void *ctx, sfk_obj list, sfk_obj v) {
  napi_env env = EnvOf(ctx);
  auto array = static_cast<napi_value>(list);
  uint32_t n = 0;
  return napi_get_array_length(env, array, &n) ||
         napi_set_element(env, array, n, static_cast<napi_value>(v));
}

int HostPut(void *ctx, sfk_obj map, const char *key, int, sfk_obj v) {
  napi_env env = EnvOf(ctx);
  napi_value pair = nullptr;
  napi_value name = nullptr;
  return napi_create_array_with_length(env, 2, &pair) ||
         napi_create_string_utf8(env, key, NAPI_AUTO_LENGTH, &name) ||
         napi_set_element(env, pair, 0, name) ||
         napi_set_element(env, pair, 1, static_cast<napi_value>(v)) ||
         HostPush(ctx, map, pair);
}

// A layout's handle, or NULL for any other value (never throws).
const sfc_layout *HostLayout(void *ctx, sfk_obj o) {
  napi_env env = EnvOf(ctx);
  auto value = static_cast<napi_value>(o);
  bool tagged = false;
  void *data = nullptr;
  napi_valuetype type = napi_undefined;
  if (value == nullptr || napi_typeof(env, value, &type) != napi_ok ||
      type != napi_external ||
      napi_check_object_type_tag(env, value, &kLayoutTag, &tagged) != napi_ok ||
      !tagged || napi_get_value_external(env, value, &data) != napi_ok) {
    return nullptr;
  }
  return static_cast<const sfc_layout *>(data);
}

// In: a value row of api.js (CoreValue), a map [[name, row], …] (MAP), or a
// layout's handle (an object of the host). Plain Node-API and no throw: a
// failure leaves JavaScript's exception pending.
int HostIn(void *ctx, sfk_obj o, sfc_value *v, sfc_error *err) {
  auto *host = static_cast<Host *>(ctx);
  Napi::Value value(host->env, static_cast<napi_value>(o));
  *v = sfc_value{};
  v->type = SFK_TYPE_OBJECT;
  if (HostLayout(ctx, o) != nullptr || !value.IsArray()) {
    return 0;
  }
  try {
    Napi::Array row = value.As<Napi::Array>();
    if (row.Length() > 0 && row.Get(0u).IsNumber()) {
      *v = CoreValue(row, host->keep);
    } else {
      v->type = SFC_TYPE_MAP;
    }
    return 0;
  } catch (const Napi::Error &) {
    return -1;
  } catch (const std::bad_alloc &) {
    sfk_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
    return -1;
  }
}

const char *HostTypeName(void *, sfk_obj) {
  return "value";
}

// The pairs of a map [[name, row], …], in order.
int HostEach(void *ctx, sfk_obj map, const char *, sfk_visit visit,
             void *visit_ctx, sfc_error *err) {
  auto *host = static_cast<Host *>(ctx);
  try {
    Napi::Array pairs(host->env, static_cast<napi_value>(map));
    for (uint32_t i = 0; i < pairs.Length(); i++) {
      Napi::Array pair = pairs.Get(i).As<Napi::Array>();
      host->keep.push_back(Text(pair.Get(0u)));
      const std::string &key = host->keep.back();
      if (!visit(visit_ctx, key.c_str(), key.size(), pair.Get(1u), err)) {
        return 0;
      }
    }
    return 1;
  } catch (const Napi::Error &) {
    return 0;
  } catch (const std::bad_alloc &) {
    sfk_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
    return 0;
  }
}

// The value that walk(host, &out, &err) makes: a failure throws the
// pending exception, or the core's error in `err`.
template <class Walk> Napi::Value Walked(Napi::Env env, Walk walk) {
  Host ctx{env, {}};
  sfk_host host{};
  host.ctx = &ctx;
  host.in = HostIn;
  host.type_name = HostTypeName;
  host.each = HostEach;
  host.layout = HostLayout;
  host.out = HostOut;
  host.list = HostList;
  host.map = HostList;
  host.push = HostPush;
  host.put = HostPut;
  sfk_obj out = nullptr;
  sfc_error err{};
  if (walk(&host, &out, &err) != 0) {
    if (err.status != SFC_OK && !env.IsExceptionPending()) {
      Throw(env, err);
    }
    throw Napi::Error::New(env);
  }
  return Napi::Value(env, static_cast<napi_value>(out));
}

// The value that walk(host, &out), one of the kit's sfk_*_out, makes.
template <class Walk> Napi::Value Out(Napi::Env env, Walk walk) {
  return Walked(env, [&](const sfk_host *h, sfk_obj *out, sfc_error *) {
    return walk(h, out);
  });
}

Napi::Value Arg(const Napi::CallbackInfo &info, size_t i) {
  return i < info.Length() ? info[i] : info.Env().Undefined();
}

// --- The core's tables -------------------------------------------------------

// textCheck(what, text): throws the core's refusal of text that C would cut.
Napi::Value TextCheck(const Napi::CallbackInfo &info) {
  std::string what = Text(Arg(info, 0));
  std::string text = Text(Arg(info, 1));
  sfc_error err;
  Must(info.Env(), sfc_text_check(what.c_str(), text.data(), text.size(), &err),
       err);
  return info.Env().Undefined();
}

// --- The kit's calls -------------------------------------------------------

// call(row, args) → the core's call of that row (snowflake_c_host.h; its
// number by name in `calls`): each argument a layout's handle, a value row
// [type, i, u, d, text], or a map [[name, row], …].
Napi::Value Call(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const uint32_t row = Arg(info, 0).As<Napi::Number>().Uint32Value();
  Napi::Array args = Arg(info, 1).As<Napi::Array>();
  const sfk_call *call = sfk_call_at(row);
  const size_t n = args.Length();
  if (call == nullptr || n < call->required || n > call->count) {
    Invalid(env, "no such call, or not its arguments.");
  }
  return Walked(env, [&](const sfk_host *h, sfk_obj *out, sfc_error *err) {
    sfk_obj objs[SFK_CALL_ARGS];
    sfc_value values[SFK_CALL_ARGS];
    for (uint32_t k = 0; k < n; k++) {
      objs[k] = static_cast<napi_value>(args.Get(k));
      if (h->in(h->ctx, objs[k], &values[k], err) != 0) {
        return -1;
      }
    }
    return sfk_call_run(h, row, objs, values, n, out, err);
  });
}

// --- Layouts ---------------------------------------------------------------

// A layout travels to JavaScript as an External holding a copy, tagged so
// that no other External can be passed for it.
Napi::Value WrapLayout(Napi::Env env, const sfc_layout &layout) {
  auto external = Napi::External<sfc_layout>::New(
      env, new sfc_layout(layout),
      [](Napi::Env, sfc_layout *data) { delete data; });
  Check(env, napi_type_tag_object(env, external, &kLayoutTag));
  return external;
}

const sfc_layout &GetLayout(const Napi::Value &value) {
  Napi::Env env = value.Env();
  bool tagged = false;
  if (value.IsExternal()) {
    Check(env, napi_check_object_type_tag(env, value, &kLayoutTag, &tagged));
  }
  if (!tagged) {
    Invalid(env, "expected a layout handle.");
  }
  return *value.As<Napi::External<sfc_layout>>().Data();
}

// One of the trio's texts; undefined is "not given".
const char *OptionalText(const Napi::Value &value, std::string &text) {
  if (value.IsUndefined()) {
    return nullptr;
  }
  text = Text(value);
  return text.c_str();
}

// layoutResolve(layout, preset, spec, epoch, forIds) → handle, by the core's
// one rule: `layout` a Layout's handle (or undefined), the trio as text;
// forIds: for IDs made elsewhere, which no layout is assumed for.
Napi::Value LayoutResolve(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  std::string preset;
  std::string spec;
  std::string epoch;
  const sfc_layout *held =
      Arg(info, 0).IsUndefined() ? nullptr : &GetLayout(Arg(info, 0));
  sfc_layout layout;
  sfc_error err;
  const bool for_ids = Arg(info, 4).ToBoolean().Value();
  const char *p = OptionalText(Arg(info, 1), preset);
  const char *s = OptionalText(Arg(info, 2), spec);
  const char *e = OptionalText(Arg(info, 3), epoch);
  Must(env,
       for_ids ? sfc_layout_resolve_for_ids(held, p, s, e, &layout, &err)
               : sfc_layout_resolve(held, p, s, e, &layout, &err),
       err);
  return WrapLayout(env, layout);
}

// instantParse(text) → Unix ms of "2024-01-01T00:00:00Z" or "1704067200000"
Napi::Value InstantParse(const Napi::CallbackInfo &info) {
  std::string text = Text(Arg(info, 0));
  int64_t ms = 0;
  sfc_error err;
  Must(info.Env(), sfc_epoch_parse(text.c_str(), &ms, &err), err);
  return Napi::Number::New(info.Env(), static_cast<double>(ms));
}

// --- String forms ----------------------------------------------------------

// --- Decode, encode, range -------------------------------------------------

// decodeRule(handle) → [maxId, epochUs, unitUs, [[shift, mask], …]], all
// bigints: the core's steps for splitting an ID (sfc_layout_decode_rule),
// which api.js takes itself, without a call per ID. The canonical JSON and
// the ISO time are the core's, made on demand (partsJson, partsTime).
Napi::Value DecodeRule(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  sfc_decode_rule rule;
  sfc_layout_decode_rule(&GetLayout(Arg(info, 0)), &rule);
  Napi::Array fields = Napi::Array::New(env, rule.field_count);
  for (uint32_t i = 0; i < rule.field_count; i++) {
    fields.Set(
        i,
        Row(env, {Napi::BigInt::New(env, static_cast<uint64_t>(rule.shift[i])),
                  Napi::BigInt::New(env, rule.mask[i])}));
  }
  return Row(env, {Napi::BigInt::New(env, rule.max_id),
                   Napi::BigInt::New(env, rule.epoch_us),
                   Napi::BigInt::New(env, rule.unit_us), fields});
}

// --- Generators ------------------------------------------------------------

// One generator, shared by the native functions made for it: each holds a
// reference and the last one collected frees it and its slot. close() frees
// the generator early (the slot stays, answering "closed" until then),
// unless a call that runs JavaScript is under way on it (see Hold).
struct GenBox {
  sfc_generator *gen; // NULL once freed
  int refs;
  int64_t external; // native bytes reported to V8, not yet given back
  std::shared_ptr<GenTable> table;
  uint32_t slot;
  int holds = 0; // calls under way that run JavaScript (Hold)
  bool closed = false;
};

void FreeGen(GenBox *box) {
  sfc_generator_free(box->gen);
  box->gen = nullptr;
}

// Keeps the generator's memory for a call that runs JavaScript before it
// is done with it (stats() sets array elements, and a setter on
// Object.prototype may close the generator): close() then only closes
// (sfc_generator_close), and the last hold to end frees.
class Hold {
public:
  explicit Hold(GenBox *box) : box_(box) {
    box_->holds++;
  }
  ~Hold() {
    if (--box_->holds == 0 && box_->closed) {
      FreeGen(box_);
    }
  }
  Hold(const Hold &) = delete;
  Hold &operator=(const Hold &) = delete;

private:
  GenBox *box_;
};

// The generator's native memory counts as V8 external memory while it
// lives, so that a program that drops generators without close() gets a GC
// in time. Given back once: by close() or by the last finalizer.
void ForgetExternal(Napi::Env env, GenBox *box) {
  if (box->external != 0) {
    Napi::MemoryManagement::AdjustExternalMemory(env, -box->external);
    box->external = 0;
  }
}

// A slot for `box` in its table: a free one, else a new one.
void TakeSlot(GenBox *box) {
  GenTable &table = *box->table;
  if (table.free.empty()) {
    box->slot = static_cast<uint32_t>(table.boxes.size());
    table.boxes.push_back(box);
  } else {
    box->slot = table.free.back();
    table.free.pop_back();
    table.boxes[box->slot] = box;
  }
}

void FreeBox(Napi::Env env, GenBox *box) {
  FreeGen(box);
  ForgetExternal(env, box);
  box->table->boxes[box->slot] = nullptr;
  box->table->free.push_back(box->slot);
  delete box;
}

void ReleaseBox(Napi::Env env, GenBox *box) {
  if (--box->refs == 0) {
    FreeBox(env, box);
  }
}

// The generator, or the core's answer for a closed one.
sfc_generator *Live(const Napi::CallbackInfo &info) {
  auto *box = static_cast<GenBox *>(info.Data());
  sfc_error err;
  if (sfc_generator_check(box->closed ? nullptr : box->gen, &err) != SFC_OK) {
    Throw(info.Env(), err);
  }
  return box->gen;
}

// Throws the JavaScript error for `status` from a plain Node-API
// function, where no C++ exception may leave.
napi_value ThrowFromC(napi_env env, sfc_status status, const char *message) {
  try {
    Throw(Napi::Env(env), status, message);
  } catch (const Napi::Error &error) {
    napi_throw(env, error.Value());
  } catch (...) {
    napi_throw_error(env, nullptr, "snowflake-c: unexpected failure.");
  }
  return nullptr;
}

// --- The string forms: hot paths, in plain Node-API as generatorNext ------

// A string form's call: (id or text, encoding number, …) in argv; false
// (an error thrown) when the call cannot be read.
bool StringFormCall(napi_env env, napi_callback_info info,
                    napi_value (&argv)[3], sfc_encoding *encoding) {
  size_t given = 3;
  int32_t number = 0;
  if (napi_get_cb_info(env, info, &given, argv, nullptr, nullptr) != napi_ok ||
      napi_get_value_int32(env, argv[1], &number) != napi_ok) {
    napi_throw_error(env, nullptr, "snowflake-c: cannot read the call.");
    return false;
  }
  *encoding = static_cast<sfc_encoding>(number);
  return true;
}

// *value, made by the Node-API call that returned `status`; else an error
// thrown.
napi_value Made(napi_env env, napi_status status, const napi_value *value) {
  if (status == napi_ok) {
    return *value;
  }
  napi_throw_error(env, nullptr, "snowflake-c: cannot make a value.");
  return nullptr;
}

// formatId(id, encoding, form) → string, form the core's flags (0: the
// encoding's default, SFC_FORMAT_SHORTEST, SFC_FORMAT_FIXED): Latin-1,
// which a string form is (ASCII), saves V8 decoding it as UTF-8.
napi_value FormatId(napi_env env, napi_callback_info info) {
  napi_value argv[3] = {};
  sfc_encoding encoding;
  if (!StringFormCall(env, info, argv, &encoding)) {
    return nullptr;
  }
  uint32_t form = 0; // api.js passes 0, 1 or 2
  napi_get_value_uint32(env, argv[2], &form);
  uint64_t id = 0;
  bool lossless = true;
  napi_value out = nullptr;
  if (napi_get_value_bigint_uint64(env, argv[0], &id, &lossless) != napi_ok) {
    id = U64(env, argv[0]); // a safe integer Number
  } else if (!lossless) {   // out of range: api.js says so
    return Made(env, napi_get_undefined(env, &out), &out);
  }
  char buf[SFC_ENCODED_MAX];
  size_t n = sfc_id_format(id, encoding, form, buf, sizeof buf);
  return Made(env, napi_create_string_latin1(env, buf, n, &out), &out);
}

// An ASCII text that fits `buf` (as every ID does) into it as bytes, else
// false. Read as UTF-16, which V8 copies from its one-byte string, where
// reading it as UTF-8 encodes it char by char; the same bytes as UTF-8's.
bool AsciiText(napi_env env, napi_value value, char (&buf)[64], size_t *len) {
  char16_t wide[sizeof buf];
  if (napi_get_value_string_utf16(env, value, wide, sizeof buf, len) !=
          napi_ok ||
      *len + 1 >= sizeof buf) {
    return false;
  }
  char16_t all = 0; // no early exit: the loop vectorises
  for (size_t i = 0; i < *len; i++) {
    all |= wide[i];
    buf[i] = static_cast<char>(wide[i]);
  }
  return all < 0x80;
}

// parseId(text, encoding) → bigint, by the text's real length (a NUL inside
// is refused with its position). A text that fills the stack buffer may be
// longer: it is read whole, so that the core names its real length.
napi_value ParseId(napi_env env, napi_callback_info info) {
  napi_value argv[3] = {};
  sfc_encoding encoding;
  if (!StringFormCall(env, info, argv, &encoding)) {
    return nullptr;
  }
  char buf[64];
  char *text = buf;
  size_t len = 0;
  if (!AsciiText(env, argv[0], buf, &len) &&
      napi_get_value_string_utf8(env, argv[0], buf, sizeof buf, &len) !=
          napi_ok) {
    return ThrowFromC(env, SFC_INVALID_ARGUMENT, "expected a string.");
  }
  if (len + 1 >= sizeof buf) {
    napi_get_value_string_utf8(env, argv[0], nullptr, 0, &len);
    text = static_cast<char *>(malloc(len + 1));
    if (text == nullptr) {
      return ThrowFromC(env, SFC_OUT_OF_MEMORY, "out of memory.");
    }
    napi_get_value_string_utf8(env, argv[0], text, len + 1, &len);
  }
  uint64_t id = 0;
  sfc_error err;
  sfc_status status = sfc_id_parse(text, len, encoding, &id, &err);
  if (text != buf) {
    free(text);
  }
  if (status != SFC_OK) {
    return ThrowFromC(env, err.status, err.message);
  }
  napi_value out = nullptr;
  return Made(env, napi_create_bigint_uint64(env, id, &out), &out);
}

// Where nextIo is the runtime's own ArrayBuffer: its memory is there only
// while it is not detached (transferred).
bool IoAttached(napi_env env, const GenTable &table) {
  napi_value buffer = nullptr;
  bool detached = true;
  return napi_get_reference_value(env, table.io_buffer, &buffer) == napi_ok &&
         buffer != nullptr &&
         napi_is_detached_arraybuffer(env, buffer, &detached) == napi_ok &&
         !detached;
}

// generatorNext(), nextId()'s hot path for every generator, in the plain C
// API: the generator's slot read from nextIo and checked against the table
// (a closed generator is NULL, which the core answers), one attempt. The ID
// goes into nextIo and the call returns undefined; else it returns the µs
// to wait (api.js waits and asks again) or throws the core's error.
napi_value GenNext(napi_env env, napi_callback_info info) {
  void *data = nullptr;
  if (napi_get_cb_info(env, info, nullptr, nullptr, nullptr, &data) !=
      napi_ok) {
    napi_throw_error(env, nullptr, "snowflake-c: cannot read the call.");
    return nullptr;
  }
  const GenTable &table = *static_cast<const GenTable *>(data);
  if (table.io_buffer != nullptr && !IoAttached(env, table)) {
    napi_throw_error(env, nullptr, "snowflake-c: nextIo is detached.");
    return nullptr;
  }
  NextIo &io = *table.io;
  uint32_t slot = io.slot;
  if (slot >= table.boxes.size() || table.boxes[slot] == nullptr) {
    return ThrowFromC(env, SFC_INVALID_ARGUMENT,
                      "expected a generator's slot.");
  }
  uint64_t id = 0;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status = sfc_next_now(table.boxes[slot]->gen, &id, &wait_us, &err);
  if (status == SFC_WAIT) {
    napi_value wait = nullptr;
    napi_create_double(env, static_cast<double>(wait_us), &wait);
    return wait;
  }
  if (status != SFC_OK) {
    return ThrowFromC(env, err.status, err.message);
  }
  io.id = id;
  return nullptr;
}

struct IdArray {
  uint64_t *data;
  size_t length;
};

IdArray ToIdArray(const Napi::Value &value) {
  if (!value.IsTypedArray() ||
      value.As<Napi::TypedArray>().TypedArrayType() != napi_biguint64_array) {
    Invalid(value.Env(), "expected a BigUint64Array.");
  }
  auto array = value.As<Napi::TypedArrayOf<uint64_t>>();
  return {array.Data(), array.ElementLength()};
}

[[noreturn]] void ThrowFilled(Napi::Env env, const sfc_error &err,
                              size_t filled) {
  Napi::Object error = MakeError(env, err.status, err.message);
  error.Set("filled", static_cast<double>(filled));
  throw Napi::Error(env, error);
}

// nextAt(nowUs?) → an ID (bigint), or the µs to wait (Number). One attempt,
// never sleeps. With nowUs, the deterministic entry; without, the live one
// (the core reads the generator's clock after the state word).
Napi::Value GenNextAt(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  sfc_generator *gen = Live(info);
  Napi::Value now = Arg(info, 0);
  uint64_t id = 0;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status = now.IsUndefined()
                          ? sfc_next_now(gen, &id, &wait_us, &err)
                          : sfc_next_at(gen, I64(now), &id, &wait_us, &err);
  if (status == SFC_OK) {
    return Napi::BigInt::New(env, id);
  }
  if (status == SFC_WAIT) {
    return Napi::Number::New(env, static_cast<double>(wait_us));
  }
  Throw(env, err);
}

// fillAt(nowUs?, out, offset) → [filled, waitUs]: one attempt at filling
// out[offset..]; never sleeps. waitUs is 0 unless the core asked to wait.
// Without nowUs, the live entry.
Napi::Value GenFillAt(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  sfc_generator *gen = Live(info);
  Napi::Value now = Arg(info, 0);
  IdArray out = ToIdArray(Arg(info, 1));
  uint64_t offset = U64(Arg(info, 2));
  if (offset > out.length) {
    Invalid(env, "offset is past the end of the array.");
  }
  uint64_t *dst = out.data + offset;
  size_t n = out.length - static_cast<size_t>(offset);
  size_t got = 0;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status =
      now.IsUndefined()
          ? sfc_next_ids_now(gen, dst, n, &got, &wait_us, &err)
          : sfc_next_ids_at(gen, I64(now), dst, n, &got, &wait_us, &err);
  if (status != SFC_OK && status != SFC_WAIT) {
    ThrowFilled(env, err, got);
  }
  return Row(env,
             {Num(env, static_cast<double>(got)),
              Num(env, static_cast<double>(status == SFC_WAIT ? wait_us : 0))});
}

Napi::Value GenNowUs(const Napi::CallbackInfo &info) {
  return Napi::BigInt::New(info.Env(), sfc_generator_now_us(Live(info)));
}

// stats() → the core's stats, [[name, value]] in its order; a map (node
// values by field) is [[key, value]].
Napi::Value GenStats(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  sfc_generator *gen = Live(info);
  // The stats' texts are the generator's: an array's setter may close it.
  Hold hold(static_cast<GenBox *>(info.Data()));
  sfc_stats s;
  sfc_generator_stats(gen, &s);
  return Out(env, [&](const sfk_host *h, sfk_obj *out) {
    return sfk_stats_out(h, &s, out);
  });
}

Napi::Value GenClose(const Napi::CallbackInfo &info) {
  auto *box = static_cast<GenBox *>(info.Data());
  if (!box->closed) {
    box->closed = true;
    if (box->holds == 0) {
      FreeGen(box);
    } else {
      sfc_generator_close(box->gen);
    }
  }
  ForgetExternal(info.Env(), box);
  return info.Env().Undefined();
}

// The core's options from api.js's rows: `node` the node values as
// [[name | null, value]] (null: the layout's only node field), `rows`
// [[name, value]] handed to the core by name as given ("maxWait"), which
// knows the options, their types and ranges, and refuses an unknown one;
// each value an sfc_value row. Every text handed to the core lives in
// `keep` (node field names and paths are held by pointer; a deque never
// moves them), the node values in `node`: both outlive `options`' use.
// Read from the call's arguments `first` (node) and `first + 1` (rows).
struct CoreOptions {
  sfc_options options;
  std::deque<std::string> keep;
  std::vector<sfc_node_value> node;

  CoreOptions(const Napi::CallbackInfo &info, size_t first);
  CoreOptions(const CoreOptions &) = delete;
  CoreOptions &operator=(const CoreOptions &) = delete;
};

CoreOptions::CoreOptions(const Napi::CallbackInfo &info, size_t first) {
  Napi::Env env = info.Env();
  Napi::Array node_rows = Arg(info, first).As<Napi::Array>();
  Napi::Array option_rows = Arg(info, first + 1).As<Napi::Array>();
  sfc_options_init(&options);
  sfc_error err;
  node.resize(node_rows.Length());
  for (uint32_t i = 0; i < node_rows.Length(); i++) {
    Napi::Array row = node_rows.Get(i).As<Napi::Array>();
    const char *name = nullptr;
    if (Napi::Value given = row.Get(0u); given.IsString()) {
      keep.push_back(Text(given));
      name = keep.back().c_str();
    }
    sfc_value v = CoreValue(row.Get(1u), keep);
    Must(env, sfc_node_value_set(&node[i], name, &v, &err), err);
  }
  sfc_options_set_nodes(&options, node.data(), node.size());
  for (uint32_t i = 0; i < option_rows.Length(); i++) {
    Napi::Array row = option_rows.Get(i).As<Napi::Array>();
    std::string name = Text(row.Get(0u));
    sfc_value v = CoreValue(row.Get(1u), keep);
    Must(env, sfc_options_set(&options, name.data(), name.size(), &v, &err),
         err);
  }
}

// A native function of a handle, bound to its box.
struct Method {
  const char *name;
  Napi::Value (*fn)(const Napi::CallbackInfo &);
};

// Sets `methods` on `handle`, each holding a reference on `box` that its
// finalizer gives back (`release`, which frees the box with the last). A
// box no function holds yet when this fails is released at once.
template <class Box, size_t N>
void Bind(Napi::Env env, Napi::Object handle, const Method (&methods)[N],
          Box *box, void (*release)(Napi::Env, Box *)) {
  try {
    for (const Method &m : methods) {
      Napi::Function fn = Napi::Function::New(env, m.fn, m.name, box);
      fn.AddFinalizer(release, box);
      box->refs++;
      handle.Set(m.name, fn);
    }
  } catch (...) {
    if (box->refs == 0) {
      box->refs = 1;
      release(env, box);
    }
    throw;
  }
}

// The handle of a new generator: { slot, nextAt, fillAt, nowUs, stats,
// close, warnings }. `slot` is for generatorNext() (through nextIo) while
// the handle lives (its functions hold the generator); `warnings` the
// core's sfc_generator_warning_at as [[kind, text]] (api.js emits them).
// Its box in `*made`.
Napi::Object GenHandle(Napi::Env env, sfc_generator *gen,
                       GenBox **made = nullptr) {
  auto *box =
      new GenBox{gen, 0, static_cast<int64_t>(sfc_generator_memory(gen)),
                 env.GetInstanceData<Addon>()->generators, 0};
  TakeSlot(box);
  Napi::MemoryManagement::AdjustExternalMemory(env, box->external);
  static const Method methods[] = {
      {"nextAt", GenNextAt}, {"fillAt", GenFillAt}, {"nowUs", GenNowUs},
      {"stats", GenStats},   {"close", GenClose},
  };
  Napi::Object handle = Napi::Object::New(env);
  Bind(env, handle, methods, box, ReleaseBox);
  handle.Set("slot", static_cast<double>(box->slot));
  // Copied now: the core's text lives only as long as the generator.
  handle.Set("warnings", Out(env, [&](const sfk_host *h, sfk_obj *out) {
               return sfk_warnings_out(h, gen, out);
             }));
  if (made != nullptr) {
    *made = box;
  }
  return handle;
}

// generatorNew(handle, node, options) → a generator's handle (GenHandle),
// `node` and `options` as CoreOptions takes them.
Napi::Value GeneratorNew(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  CoreOptions opts(info, 1);
  sfc_generator *gen = nullptr;
  sfc_error err;
  Must(env, sfc_generator_new(&layout, &opts.options, &gen, &err), err);
  return GenHandle(env, gen);
}

// --- Leases ----------------------------------------------------------------

// A node value leased from PostgreSQL: the core's protocol (sfc_lease_*),
// whose statements node/lease.js runs through node-postgres. Shared by the
// functions made for it, as a GenBox is; the last one collected frees it.
// It keeps the statement in flight (its parameters point into it) and,
// once it made its generator, a reference and a hold on that generator's
// box until release(): the core's lease reads the generator's clock and
// word until then, even after close().
struct LeaseBox {
  sfc_lease *lease;
  int refs = 0;
  GenBox *gen = nullptr;
  sfc_lease_query q{};
  bool has_query = false;
};

void LetGoOfGen(Napi::Env env, LeaseBox *box) {
  GenBox *gen = box->gen;
  if (gen == nullptr) {
    return;
  }
  box->gen = nullptr;
  if (--gen->holds == 0 && gen->closed) {
    FreeGen(gen);
  }
  ReleaseBox(env, gen);
}

void FreeLease(Napi::Env env, LeaseBox *box) {
  sfc_lease_free(box->lease); // first: it no longer reads the generator
  box->lease = nullptr;
  LetGoOfGen(env, box);
}

void ReleaseLease(Napi::Env env, LeaseBox *box) {
  if (--box->refs == 0) {
    FreeLease(env, box);
    delete box;
  }
}

LeaseBox *LiveLease(const Napi::CallbackInfo &info) {
  auto *box = static_cast<LeaseBox *>(info.Data());
  if (box->lease == nullptr) {
    Invalid(info.Env(), "the lease was freed.");
  }
  return box;
}

// A statement as [step, sql, params]: the parameters as strings ($1, $2,
// …; each statement casts them).
Napi::Value QueryOf(Napi::Env env, const sfc_lease_query &q) {
  static const char *const steps[] = {"idle", "acquire", "renew", "release"};
  Napi::Array params = Napi::Array::New(env, static_cast<size_t>(q.nparams));
  for (int i = 0; i < q.nparams; i++) {
    params.Set(static_cast<uint32_t>(i), q.params[i]);
  }
  return Row(env, {Str(env, steps[q.step]), Str(env, q.sql), params});
}

// The statement handed out last, which done() or failed() answers once.
void TakeQuery(Napi::Env env, LeaseBox *box) {
  if (!box->has_query) {
    Invalid(env, "the lease has no statement in flight: take one from due() "
                 "or release() first.");
  }
  box->has_query = false;
}

// due() → the statement due now, [step, sql, params], or the µs to sleep
// before asking again (the core caps it).
Napi::Value LeaseDue(const Napi::CallbackInfo &info) {
  LeaseBox *box = LiveLease(info);
  int64_t wait_us = 0;
  box->has_query = false;
  if (sfc_lease_due(box->lease, &box->q, &wait_us) == SFC_LEASE_IDLE) {
    return Napi::Number::New(info.Env(), static_cast<double>(wait_us));
  }
  box->has_query = true;
  return QueryOf(info.Env(), box->q);
}

// done(row): the row the statement returned (each column as PostgreSQL's
// text: a string, or null for SQL NULL), or null for no row. Throws what
// the core makes of it: WorkerUnavailable (every value held), LeaseExpired
// (the value taken by another holder).
Napi::Value LeaseDone(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  LeaseBox *box = LiveLease(info);
  TakeQuery(env, box);
  Napi::Value given = Arg(info, 0);
  std::deque<std::string> keep;
  const char *row[SFC_LEASE_PARAMS] = {nullptr};
  uint32_t ncols = 0;
  if (given.IsArray()) {
    Napi::Array cols = given.As<Napi::Array>();
    ncols = std::min<uint32_t>(cols.Length(), SFC_LEASE_PARAMS);
    for (uint32_t i = 0; i < ncols; i++) {
      if (Napi::Value col = cols.Get(i); col.IsString()) {
        keep.push_back(Text(col));
        row[i] = keep.back().c_str();
      }
    }
  }
  sfc_error err;
  Must(env,
       sfc_lease_done(box->lease, &box->q, given.IsArray() ? row : nullptr,
                      static_cast<int>(ncols), &err),
       err);
  return env.Undefined();
}

// failed(why): the statement could not be run (the driver's message); the
// core retries it with backoff.
Napi::Value LeaseFailed(const Napi::CallbackInfo &info) {
  LeaseBox *box = LiveLease(info);
  TakeQuery(info.Env(), box);
  std::string why = Text(Arg(info, 0));
  sfc_lease_failed(box->lease, &box->q, why.c_str());
  return info.Env().Undefined();
}

// acquired() → true once a value is held, false while the acquire may go
// on; past the core's time, WorkerUnavailable saying why.
Napi::Value LeaseAcquired(const Napi::CallbackInfo &info) {
  LeaseBox *box = LiveLease(info);
  sfc_error err;
  sfc_status status = sfc_lease_acquired(box->lease, &err);
  if (status != SFC_OK && status != SFC_WAIT) {
    Throw(info.Env(), err);
  }
  return Napi::Boolean::New(info.Env(), status == SFC_OK);
}

// generatorNew(node, options) → a generator's handle (GenHandle) on the
// value acquired, starting after the previous holder's horizon.
Napi::Value LeaseGeneratorNew(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  LeaseBox *box = LiveLease(info);
  CoreOptions opts(info, 0);
  sfc_generator *gen = nullptr;
  sfc_error err;
  Must(env, sfc_lease_generator_new(box->lease, &opts.options, &gen, &err),
       err);
  GenBox *made = nullptr;
  Napi::Object handle;
  try {
    handle = GenHandle(env, gen, &made);
  } catch (...) {
    // The generator may be gone with its handle: the lease no longer reads
    // it (its value expires unless the host gives it back).
    box->has_query = sfc_lease_release(box->lease, &box->q);
    throw;
  }
  made->holds++; // the lease's, until release()
  made->refs++;
  box->gen = made;
  return handle;
}

Napi::Value LeaseValid(const Napi::CallbackInfo &info) {
  return Napi::Boolean::New(info.Env(),
                            sfc_lease_valid(LiveLease(info)->lease));
}

// release() → the statement that gives the value back (its generator
// closed first: the row keeps its exact last tick), or null when nothing
// is held. The lease lets go of its generator.
Napi::Value LeaseRelease(const Napi::CallbackInfo &info) {
  LeaseBox *box = LiveLease(info);
  box->has_query = sfc_lease_release(box->lease, &box->q);
  LetGoOfGen(info.Env(), box);
  return box->has_query ? QueryOf(info.Env(), box->q) : info.Env().Null();
}

// stats() → [[name, value]]: the keys of the CLI's `gen --stats --json`.
Napi::Value LeaseStats(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  sfc_lease_stats s;
  sfc_lease_stats_get(LiveLease(info)->lease, &s);
  return Out(env, [&](const sfk_host *h, sfk_obj *out) {
    return sfk_lease_stats_out(h, &s, out);
  });
}

// free(): frees the lease now (after release()); idempotent.
Napi::Value LeaseFree(const Napi::CallbackInfo &info) {
  auto *box = static_cast<LeaseBox *>(info.Data());
  if (box->lease != nullptr) {
    FreeLease(info.Env(), box);
  }
  return info.Env().Undefined();
}

// leaseWanted(handle, node, options) → whether a node field is given as
// "lease" (or by its environment variable): such a generator is made
// through leaseNew, every other through generatorNew.
Napi::Value LeaseWanted(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  CoreOptions opts(info, 1);
  return Napi::Boolean::New(env, sfc_lease_wanted(&layout, &opts.options));
}

// leaseNew(handle, node, options) → { due, done, failed, acquired,
// generatorNew, valid, release, stats, free }, for a node field that
// leaseWanted says is leased. Reads the options leaseDuration and leaseKey.
Napi::Value LeaseNew(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  CoreOptions opts(info, 1);
  sfc_lease *lease = nullptr;
  sfc_error err;
  Must(env, sfc_lease_new(&layout, &opts.options, &lease, &err), err);
  auto *box = new LeaseBox{lease};
  static const Method methods[] = {
      {"due", LeaseDue},
      {"done", LeaseDone},
      {"failed", LeaseFailed},
      {"acquired", LeaseAcquired},
      {"generatorNew", LeaseGeneratorNew},
      {"valid", LeaseValid},
      {"release", LeaseRelease},
      {"stats", LeaseStats},
      {"free", LeaseFree},
  };
  Napi::Object handle = Napi::Object::New(env);
  Bind(env, handle, methods, box, ReleaseLease);
  return handle;
}

// sleep(us): a synchronous call's brief wait for the clock (api.js decides
// how long one may be).
Napi::Value Sleep(const Napi::CallbackInfo &info) {
  sfc_pause(I64(Arg(info, 0)));
  return info.Env().Undefined();
}

// --- Module ----------------------------------------------------------------

// setErrorClasses({ InvalidLayout, … }): the class of each error kind of
// the core's status table, by name (errors.js made them from statuses()).
Napi::Value Addon::SetErrorClasses(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object classes = Arg(info, 0).As<Napi::Object>();
  const sfc_status_info *s = nullptr;
  for (size_t i = 0; (s = sfc_status_at(i)) != nullptr; i++) {
    if (s->is_error == 0 || s->status >= SFC_STATUS_COUNT) {
      continue;
    }
    Napi::Value cls = classes.Get(s->name);
    if (!cls.IsFunction()) {
      Invalid(env, std::string("no error class for ") + s->name + ".");
    }
    error_classes[s->status] = Napi::Persistent(cls.As<Napi::Function>());
  }
  return env.Undefined();
}

// nextIo: an ArrayBuffer over the table's NextIo. External where the
// runtime allows it, holding the table, so that its memory outlives any
// copy of the buffer; else the runtime's own (generatorNext then checks that
// it is still attached before each use).
Napi::Value NextIoBuffer(Napi::Env env,
                         const std::shared_ptr<GenTable> &table) {
  auto *held = new std::shared_ptr<GenTable>(table);
  napi_value buffer = nullptr;
  napi_status status = napi_create_external_arraybuffer(
      env, &table->own_io, sizeof(NextIo),
      [](napi_env, void *, void *hint) {
        delete static_cast<std::shared_ptr<GenTable> *>(hint);
      },
      held, &buffer);
  if (status == napi_ok) {
    return Napi::Value(env, buffer);
  }
  delete held;
  if (status != napi_no_external_buffers_allowed) {
    Check(env, status);
  }
  void *memory = nullptr;
  Check(env, napi_create_arraybuffer(env, sizeof(NextIo), &memory, &buffer));
  Check(env, napi_create_reference(env, buffer, 1, &table->io_buffer));
  table->io = static_cast<NextIo *>(memory);
  return Napi::Value(env, buffer);
}

Addon::Addon(Napi::Env env, Napi::Object exports) {
  if (sfc_version_number() != SFC_VERSION_NUMBER) {
    throw Napi::Error::New(env, "snowflake-c: the core library's version "
                                "differs from the header the addon was built "
                                "with; rebuild the addon.");
  }
  DefineAddon(exports,
              {
                  InstanceMethod("setErrorClasses", &Addon::SetErrorClasses),
              });
  struct Export {
    const char *name;
    Napi::Value (*fn)(const Napi::CallbackInfo &);
  };
  static const Export functions[] = {
      {"textCheck", TextCheck},
      {"layoutResolve", LayoutResolve},
      {"instantParse", InstantParse},
      {"decodeRule", DecodeRule},
      {"generatorNew", GeneratorNew},
      {"leaseWanted", LeaseWanted},
      {"leaseNew", LeaseNew},
      {"sleep", Sleep},
      {"call", Call},
  };
  for (const Export &f : functions) {
    exports.Set(f.name, Napi::Function::New(env, f.fn, f.name));
  }
  // The string forms in plain Node-API (hot paths).
  static const struct {
    const char *name;
    napi_callback fn;
  } raw[] = {{"formatId", FormatId}, {"parseId", ParseId}};
  for (const auto &r : raw) {
    napi_value fn = nullptr;
    Check(env, napi_create_function(env, r.name, NAPI_AUTO_LENGTH, r.fn,
                                    nullptr, &fn));
    exports.Set(r.name, Napi::Value(env, fn));
  }
  // The kit's calls' numbers by name.
  Napi::Object calls = Napi::Object::New(env);
  for (uint32_t row = 0; sfk_call_at(row) != nullptr; row++) {
    calls.Set(sfk_call_at(row)->name, row);
  }
  exports.Set("calls", calls);
  // The header's sfc_type names by number.
  Napi::Array types = Napi::Array::New(env);
  for (uint32_t t = 0;
       std::strcmp(sfc_type_name(static_cast<sfc_type>(t)), "unknown") != 0;
       t++) {
    types.Set(t, sfc_type_name(static_cast<sfc_type>(t)));
  }
  exports.Set("types", types);
  // The function holds the table too: its data must outlive any call.
  auto *held = new std::shared_ptr<GenTable>(generators);
  napi_value next = nullptr;
  Check(env, napi_create_function(env, "generatorNext", NAPI_AUTO_LENGTH,
                                  GenNext, held->get(), &next));
  Napi::Function(env, next).AddFinalizer(
      [](Napi::Env, std::shared_ptr<GenTable> *table) { delete table; }, held);
  exports.Set("generatorNext", next);
  exports.Set("nextIo", NextIoBuffer(env, generators));
  exports.Set("version", sfc_version_string());
}

} // namespace

NODE_API_ADDON(Addon)
