// Node-API glue for snowflake-c: converts JavaScript values to the core's
// types and back, and turns an sfc_status into the matching error class of
// node/errors.js. Every decision about layouts, IDs and time is the core's.
//
// Context-aware: all state lives in the per-environment Addon instance (the
// error classes) or in objects owned by JavaScript values, so the addon loads
// in any number of worker threads.
#include <napi.h>
#include <snowflake_c.h>

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0; // 2^53 - 1
constexpr int64_t kSyncWaitUs = 10000;
constexpr const char *kClosedMessage =
    "the generator is closed: create a new one.";
constexpr napi_type_tag kLayoutTag = {0x5f1c0d3e5b9f4a21ULL,
                                      0x9e02c4b6f1d83a57ULL};

class Addon : public Napi::Addon<Addon> {
public:
  Addon(Napi::Env env, Napi::Object exports);

  // Error classes from errors.js, indexed by sfc_status.
  Napi::FunctionReference error_classes[SFC_STATUS_COUNT];

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
  throw Napi::Error(env, MakeError(env, status, message));
}

[[noreturn]] void Throw(Napi::Env env, const sfc_error &err) {
  Throw(env, err.status, err.message);
}

[[noreturn]] __attribute__((format(printf, 2, 3))) void
Invalid(Napi::Env env, const char *fmt, ...) {
  char message[SFC_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  Throw(env, SFC_INVALID_ARGUMENT, message);
}

// --- Conversions -----------------------------------------------------------

// Text handed to the core: a string without NUL bytes, which C would cut
// (the core refuses one with its position).
std::string ToText(const Napi::Value &value, const char *what) {
  if (!value.IsString()) {
    Invalid(value.Env(), "%s must be a string.", what);
  }
  std::string text = value.As<Napi::String>().Utf8Value();
  sfc_error err;
  if (sfc_text_check(what, text.data(), text.size(), &err) != SFC_OK) {
    Throw(value.Env(), err);
  }
  return text;
}

// A value as JavaScript would print it, for messages: 0.1 stays "0.1".
std::string Shown(const Napi::Value &value) {
  std::string text = value.ToString().Utf8Value();
  return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}

bool IsSafeInteger(double d) {
  return std::isfinite(d) && std::trunc(d) == d &&
         std::fabs(d) <= kMaxSafeInteger;
}

// An unsigned 64-bit value (IDs, field values): a bigint, a decimal string
// or a Number that is a safe integer. Never rounded.
uint64_t ToU64(const Napi::Value &value, const char *what) {
  Napi::Env env = value.Env();
  switch (value.Type()) {
  case napi_bigint: {
    bool lossless = false;
    uint64_t x = value.As<Napi::BigInt>().Uint64Value(&lossless);
    if (!lossless) {
      Invalid(env, "%s is out of range: it must be between 0 and 2^64 - 1.",
              what);
    }
    return x;
  }
  case napi_number: {
    double d = value.As<Napi::Number>().DoubleValue();
    if (!IsSafeInteger(d) || d < 0) {
      Invalid(env,
              "%s (%s) is not a non-negative safe integer: a Number holds "
              "integers exactly only up to 2^53 - 1. Pass a bigint (123n) or "
              "a decimal string.",
              what, Shown(value).c_str());
    }
    return static_cast<uint64_t>(d);
  }
  case napi_string: {
    // By its real length: a NUL inside is refused, never the end.
    std::string text = value.As<Napi::String>().Utf8Value();
    uint64_t x = 0;
    sfc_error err;
    if (sfc_id_parse_n(text.data(), text.size(), &x, &err) != SFC_OK) {
      Throw(env, err);
    }
    return x;
  }
  default:
    Invalid(env, "%s must be a bigint, a decimal string or a safe integer.",
            what);
  }
}

// A signed 64-bit value (times): a bigint or a safe integer Number.
int64_t ToI64(const Napi::Value &value, const char *what) {
  Napi::Env env = value.Env();
  if (value.IsBigInt()) {
    bool lossless = false;
    int64_t x = value.As<Napi::BigInt>().Int64Value(&lossless);
    if (!lossless) {
      Invalid(env, "%s is out of the signed 64-bit range.", what);
    }
    return x;
  }
  if (value.IsNumber()) {
    double d = value.As<Napi::Number>().DoubleValue();
    if (!IsSafeInteger(d)) {
      Invalid(env,
              "%s (%s) is not a safe integer: pass a bigint or an integer "
              "Number up to 2^53 - 1.",
              what, Shown(value).c_str());
    }
    return static_cast<int64_t>(d);
  }
  Invalid(env, "%s must be a bigint or an integer Number.", what);
}

Napi::Value FromU64(Napi::Env env, uint64_t x) {
  return Napi::BigInt::New(env, x);
}

// A field value: a Number when the field is at most 53 bits wide (so every
// value is exact), a bigint otherwise. The type depends on the layout only.
Napi::Value FieldValue(Napi::Env env, const sfc_field &field, uint64_t x) {
  if (field.bits <= 53) {
    return Napi::Number::New(env, static_cast<double>(x));
  }
  return Napi::BigInt::New(env, x);
}

// Every napi_status is checked: a failure becomes the pending JavaScript
// exception (or one built from the last error) and unwinds as Napi::Error.
void Check(Napi::Env env, napi_status status) {
  if (status != napi_ok) {
    throw Napi::Error::New(env);
  }
}

Napi::Value Arg(const Napi::CallbackInfo &info, size_t i) {
  return i < info.Length() ? info[i] : info.Env().Undefined();
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

int64_t ToEpochMs(const Napi::Value &value) {
  if (value.IsString()) {
    std::string text = ToText(value, "epoch");
    int64_t epoch_ms = 0;
    sfc_error err;
    if (sfc_epoch_parse(text.c_str(), &epoch_ms, &err) != SFC_OK) {
      Throw(value.Env(), err);
    }
    return epoch_ms;
  }
  return ToI64(value, "epoch");
}

// layoutParse(spec, epoch) → handle
Napi::Value LayoutParse(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  std::string spec = ToText(Arg(info, 0), "layout");
  int64_t epoch_ms = ToEpochMs(Arg(info, 1));
  sfc_layout layout;
  sfc_error err;
  if (sfc_layout_parse(spec.c_str(), epoch_ms, &layout, &err) != SFC_OK) {
    Throw(env, err);
  }
  return WrapLayout(env, layout);
}

// layoutPreset(name) → handle
Napi::Value LayoutPreset(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  std::string name = ToText(Arg(info, 0), "preset");
  sfc_layout layout;
  sfc_error err;
  if (sfc_layout_preset(name.c_str(), &layout, &err) != SFC_OK) {
    Throw(env, err);
  }
  return WrapLayout(env, layout);
}

Napi::String IsoString(Napi::Env env, int64_t unix_ms) {
  char iso[SFC_ISO_MAX];
  size_t n = sfc_format_iso(unix_ms, iso, sizeof iso);
  return Napi::String::New(env, iso, n < sizeof iso ? n : sizeof iso - 1);
}

// layoutInfo(handle) → everything a layout says about itself
Napi::Value LayoutInfo(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  char spec[SFC_SPEC_MAX];
  size_t n = sfc_layout_spec(&layout, spec, sizeof spec);
  sfc_layout_info about;
  sfc_layout_describe(&layout, &about);

  Napi::Array fields = Napi::Array::New(env, layout.field_count);
  for (unsigned i = 0; i < layout.field_count; i++) {
    const sfc_field &f = layout.fields[i];
    Napi::Object field = Napi::Object::New(env);
    field.Set("name", f.name);
    field.Set("kind", sfc_field_kind_name(f.kind));
    field.Set("bits", f.bits);
    field.Set("shift", f.shift);
    field.Set("max", FromU64(env, f.max));
    fields.Set(i, field);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("spec", Napi::String::New(env, spec, n < sizeof spec ? n : 0));
  out.Set("epochMs", static_cast<double>(layout.epoch_ms));
  out.Set("unitUs", static_cast<double>(layout.unit_us));
  out.Set("totalBits", layout.total_bits);
  out.Set("fields", fields);
  out.Set("idsPerSecond", about.ids_per_second);
  out.Set("nodeCapacity", about.node_capacity);
  out.Set("timeEndMs", static_cast<double>(about.time_end_ms));
  out.Set("timeEnd", IsoString(env, about.time_end_ms));
  out.Set("maxId", FromU64(env, about.max_id));
  return out;
}

// presets() → [{ name, spec, epochMs }]
Napi::Value Presets(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  size_t count = sfc_preset_count();
  Napi::Array out = Napi::Array::New(env, count);
  for (size_t i = 0; i < count; i++) {
    const char *name = nullptr;
    const char *spec = nullptr;
    int64_t epoch_ms = 0;
    if (sfc_preset_at(i, &name, &spec, &epoch_ms) != SFC_OK) {
      Throw(env, SFC_INVALID_ARGUMENT, "preset table out of range.");
    }
    Napi::Object preset = Napi::Object::New(env);
    preset.Set("name", name);
    preset.Set("spec", spec);
    preset.Set("epochMs", static_cast<double>(epoch_ms));
    out.Set(static_cast<uint32_t>(i), preset);
  }
  return out;
}

// epochParse(text) → Unix ms
Napi::Value EpochParse(const Napi::CallbackInfo &info) {
  return Napi::Number::New(info.Env(),
                           static_cast<double>(ToEpochMs(Arg(info, 0))));
}

// --- Decode, encode, range -------------------------------------------------

// --- String forms --------------------------------------------------------

sfc_encoding ToEncoding(const Napi::Value &value) {
  std::string name = ToText(value, "encoding");
  sfc_encoding encoding;
  sfc_error err;
  if (sfc_encoding_by_name(name.data(), name.size(), &encoding, &err) !=
      SFC_OK) {
    Throw(value.Env(), err);
  }
  return encoding;
}

// An ID as text in `encoding`, by its real length (a NUL inside is refused
// with its position).
uint64_t ParseAs(const Napi::Value &value, sfc_encoding encoding) {
  if (!value.IsString()) {
    Invalid(value.Env(), "an encoded ID must be a string.");
  }
  std::string text = value.As<Napi::String>().Utf8Value();
  uint64_t id = 0;
  sfc_error err;
  if (sfc_id_parse_as(text.data(), text.size(), encoding, &id, &err) !=
      SFC_OK) {
    Throw(value.Env(), err);
  }
  return id;
}

// formatId(id, encoding, shortest) → string
Napi::Value FormatId(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  uint64_t id = ToU64(Arg(info, 0), "id");
  sfc_encoding encoding = ToEncoding(Arg(info, 1));
  unsigned flags = Arg(info, 2).ToBoolean() ? SFC_FORMAT_SHORTEST : 0;
  char buf[SFC_ENCODED_MAX];
  size_t n = sfc_id_format(id, encoding, flags, buf, sizeof buf);
  return Napi::String::New(env, buf, n);
}

// parseId(text, encoding) → bigint
Napi::Value ParseId(const Napi::CallbackInfo &info) {
  sfc_encoding encoding = ToEncoding(Arg(info, 1));
  return FromU64(info.Env(), ParseAs(Arg(info, 0), encoding));
}

// decode(handle, id[, encoding]) → { id, timeMs, timeUs, time, json, values }
Napi::Value Decode(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  uint64_t id = Arg(info, 2).IsUndefined()
                    ? ToU64(Arg(info, 1), "id")
                    : ParseAs(Arg(info, 1), ToEncoding(Arg(info, 2)));
  sfc_parts parts;
  sfc_error err;
  if (sfc_decode(&layout, id, &parts, &err) != SFC_OK) {
    Throw(env, err);
  }
  char json[SFC_JSON_MAX];
  size_t n = sfc_parts_json(&layout, &parts, json, sizeof json);
  if (n >= sizeof json) {
    Throw(env, SFC_INVALID_ARGUMENT, "decoded JSON does not fit its buffer.");
  }
  Napi::Array values = Napi::Array::New(env, layout.field_count);
  for (unsigned i = 0; i < layout.field_count; i++) {
    values.Set(i, FieldValue(env, layout.fields[i], parts.values[i]));
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("id", FromU64(env, parts.id));
  out.Set("timeMs", static_cast<double>(parts.time_ms));
  out.Set("timeUs", Napi::BigInt::New(env, parts.time_us));
  out.Set("time", IsoString(env, parts.time_ms));
  out.Set("json", Napi::String::New(env, json, n));
  out.Set("values", values);
  return out;
}

// A field value for sfc_encode_named: a bigint, a decimal string or a safe
// integer Number. Values beyond int64_t are clamped so that the core, which
// checks every value against its field, names the field in its message.
int64_t ToFieldValue(const Napi::Value &value, const std::string &name) {
  Napi::Env env = value.Env();
  switch (value.Type()) {
  case napi_bigint: {
    bool lossless = false;
    int64_t x = value.As<Napi::BigInt>().Int64Value(&lossless);
    if (!lossless) {
      int sign = 0;
      size_t count = 1;
      uint64_t word = 0;
      value.As<Napi::BigInt>().ToWords(&sign, &count, &word);
      x = sign != 0 ? INT64_MIN : INT64_MAX;
    }
    return x;
  }
  case napi_string: {
    std::string text = ToText(value, name.c_str());
    uint64_t x = 0;
    sfc_error err;
    if (sfc_id_parse(text.c_str(), &x, &err) != SFC_OK) {
      Invalid(env,
              "field '%s' must be a decimal integer (digits only), not "
              "'%.40s'.",
              name.c_str(), text.c_str());
    }
    return x > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                : static_cast<int64_t>(x);
  }
  case napi_number: {
    double d = value.As<Napi::Number>().DoubleValue();
    if (!IsSafeInteger(d)) {
      Invalid(env,
              "field '%s' (%.17g) is not a safe integer: a Number holds "
              "integers exactly only up to 2^53 - 1. Pass a bigint or a "
              "decimal string.",
              name.c_str(), d);
    }
    return static_cast<int64_t>(d);
  }
  default:
    Invalid(env,
            "field '%s' must be a bigint, a decimal string or a safe integer.",
            name.c_str());
  }
}

// encode(handle, timeUs, fields) → id. The core checks the fields: every
// field but time exactly once, each within its range.
Napi::Value Encode(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  int64_t time_us = ToI64(Arg(info, 1), "time");
  Napi::Value fields_value = Arg(info, 2);
  if (!fields_value.IsObject()) {
    Invalid(env, "fields must be an object of field values by name.");
  }
  Napi::Object fields = fields_value.As<Napi::Object>();
  Napi::Array keys = fields.GetPropertyNames();
  std::vector<std::string> names;
  std::vector<sfc_node_value> values;
  names.reserve(keys.Length());
  values.reserve(keys.Length());
  for (uint32_t i = 0; i < keys.Length(); i++) {
    Napi::Value key = keys.Get(i);
    names.push_back(ToText(key, "field name"));
    values.push_back({nullptr, ToFieldValue(fields.Get(key), names.back())});
  }
  for (size_t i = 0; i < values.size(); i++) {
    values[i].name = names[i].c_str();
  }
  uint64_t id = 0;
  sfc_error err;
  if (sfc_encode_named(&layout, time_us, values.data(), values.size(), &id,
                       &err) != SFC_OK) {
    Throw(env, err);
  }
  return FromU64(env, id);
}

// range(handle, t0Ms, t1Ms) → [min, max]
Napi::Value Range(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  int64_t t0 = ToI64(Arg(info, 1), "start time");
  int64_t t1 = ToI64(Arg(info, 2), "end time");
  uint64_t lo = 0;
  uint64_t hi = 0;
  sfc_error err;
  if (sfc_range(&layout, t0, t1, &lo, &hi, &err) != SFC_OK) {
    Throw(env, err);
  }
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, FromU64(env, lo));
  out.Set(1u, FromU64(env, hi));
  return out;
}

// --- Generators ------------------------------------------------------------

// One generator, shared by the native functions made for it: each holds a
// reference and the last one collected frees it. close() frees it early.
struct GenBox {
  sfc_generator *gen;
  int refs;
  int64_t sync_wait_limit_us;
  int64_t external; // native bytes reported to V8, not yet given back
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

void ReleaseBox(Napi::Env env, GenBox *box) {
  if (--box->refs == 0) {
    sfc_generator_free(box->gen);
    ForgetExternal(env, box);
    delete box;
  }
}

sfc_generator *Live(const Napi::CallbackInfo &info) {
  auto *box = static_cast<GenBox *>(info.Data());
  if (box->gen == nullptr) {
    Invalid(info.Env(), kClosedMessage);
  }
  return box->gen;
}

// Synchronous calls wait for the clock only up to one tick (at least
// kSyncWaitUs) at a time: what a full tick needs. A longer wait (the clock
// behind the last ID issued, under the `wait` or `borrow` strategies) would
// block the event loop, so it is an error here; the async methods wait any
// length with timers.
bool SyncWait(const GenBox *box, int64_t wait_us, sfc_error *err) {
  if (wait_us > box->sync_wait_limit_us) {
    err->status = SFC_CLOCK_MOVED_BACKWARDS;
    snprintf(err->message, sizeof err->message,
             "the generator must wait %" PRId64
             " us for the clock to catch up, longer than a synchronous call "
             "may block the event loop (%" PRId64
             " us): use nextIdAsync() / nextIdsAsync(), or retry later.",
             wait_us, box->sync_wait_limit_us);
    return false;
  }
  sfc_pause(wait_us);
  return true;
}

// Goes on from a first attempt that did not issue an ID: waits (briefly)
// and retries, or throws the core's error.
uint64_t NextAfter(Napi::Env env, GenBox *box, sfc_status status,
                   int64_t wait_us, const sfc_error &first) {
  const sfc_error *err = &first;
  sfc_error again;
  for (;;) {
    if (status != SFC_WAIT) {
      Throw(env, *err);
    }
    if (!SyncWait(box, wait_us, &again)) {
      Throw(env, again);
    }
    uint64_t id = 0;
    status = sfc_next_now(box->gen, &id, &wait_us, &again);
    if (status == SFC_OK) {
      return id;
    }
    err = &again;
  }
}

uint64_t NextSync(const Napi::CallbackInfo &info) {
  auto *box = static_cast<GenBox *>(info.Data());
  sfc_generator *gen = Live(info);
  uint64_t id = 0;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status = sfc_next_now(gen, &id, &wait_us, &err);
  return status == SFC_OK ? id
                          : NextAfter(info.Env(), box, status, wait_us, err);
}

// nextId(), the hot path, in the plain C API: one attempt, and only when it
// does not issue an ID the C++ path above (whose exceptions become pending
// JavaScript exceptions here).
napi_value GenNext(napi_env env, napi_callback_info info) {
  void *data = nullptr;
  if (napi_get_cb_info(env, info, nullptr, nullptr, nullptr, &data) !=
      napi_ok) {
    napi_throw_error(env, nullptr, "snowflake-c: cannot read the call.");
    return nullptr;
  }
  auto *box = static_cast<GenBox *>(data);
  uint64_t id = 0;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status = SFC_INVALID_ARGUMENT;
  if (box->gen == nullptr ||
      (status = sfc_next_now(box->gen, &id, &wait_us, &err)) != SFC_OK) {
    try {
      if (box->gen == nullptr) {
        Invalid(Napi::Env(env), kClosedMessage);
      }
      id = NextAfter(Napi::Env(env), box, status, wait_us, err);
    } catch (const Napi::Error &error) {
      napi_throw(env, error.Value());
      return nullptr;
    } catch (...) {
      napi_throw_error(env, nullptr, "snowflake-c: unexpected failure.");
      return nullptr;
    }
  }
  napi_value out = nullptr;
  if (napi_create_bigint_uint64(env, id, &out) != napi_ok) {
    napi_throw_error(env, nullptr, "snowflake-c: cannot create a bigint.");
    return nullptr;
  }
  return out;
}

Napi::Value GenNextString(const Napi::CallbackInfo &info) {
  char text[24];
  int n = snprintf(text, sizeof text, "%" PRIu64, NextSync(info));
  return Napi::String::New(info.Env(), text, static_cast<size_t>(n));
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

// nextIds(out) fills the whole BigUint64Array, waiting like nextId().
Napi::Value GenNextIds(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  sfc_generator *gen = Live(info);
  IdArray out = ToIdArray(Arg(info, 0));
  size_t filled = 0;
  while (filled < out.length) {
    size_t got = 0;
    int64_t wait_us = 0;
    sfc_error err;
    sfc_status status = sfc_next_ids_now(
        gen, out.data + filled, out.length - filled, &got, &wait_us, &err);
    filled += got;
    if (status == SFC_WAIT) {
      if (!SyncWait(static_cast<GenBox *>(info.Data()), wait_us, &err)) {
        ThrowFilled(env, err, filled);
      }
    } else if (status != SFC_OK) {
      ThrowFilled(env, err, filled);
    }
  }
  return env.Undefined();
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
  sfc_status status = now.IsUndefined() ? sfc_next_now(gen, &id, &wait_us, &err)
                                        : sfc_next_at(gen, ToI64(now, "nowUs"),
                                                      &id, &wait_us, &err);
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
  uint64_t offset = ToU64(Arg(info, 2), "offset");
  if (offset > out.length) {
    Invalid(env, "offset is past the end of the array.");
  }
  uint64_t *dst = out.data + offset;
  size_t n = out.length - static_cast<size_t>(offset);
  size_t got = 0;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status = now.IsUndefined()
                          ? sfc_next_ids_now(gen, dst, n, &got, &wait_us, &err)
                          : sfc_next_ids_at(gen, ToI64(now, "nowUs"), dst, n,
                                            &got, &wait_us, &err);
  if (status != SFC_OK && status != SFC_WAIT) {
    ThrowFilled(env, err, got);
  }
  Napi::Array result = Napi::Array::New(env, 2);
  result.Set(0u, static_cast<double>(got));
  result.Set(1u, static_cast<double>(status == SFC_WAIT ? wait_us : 0));
  return result;
}

Napi::Value GenNowUs(const Napi::CallbackInfo &info) {
  return Napi::BigInt::New(info.Env(), sfc_generator_now_us(Live(info)));
}

Napi::Value GenStats(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  sfc_generator *gen = Live(info);
  const sfc_layout *layout = sfc_generator_layout(gen);
  sfc_stats s;
  sfc_generator_stats(gen, &s);
  Napi::Object node = Napi::Object::New(env);
  for (unsigned i = 0; i < s.node_count; i++) {
    int index = sfc_layout_field_index(layout, s.node_names[i]);
    Napi::Object entry = Napi::Object::New(env);
    entry.Set("value", index >= 0 ? FieldValue(env, layout->fields[index],
                                               s.node_values[i])
                                  : FromU64(env, s.node_values[i]));
    entry.Set("source", sfc_node_source_name(s.node_sources[i]));
    node.Set(s.node_names[i], entry);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("idsIssued", static_cast<double>(s.ids_issued));
  out.Set("waits", static_cast<double>(s.waits));
  out.Set("borrowedTicks", static_cast<double>(s.borrowed_ticks));
  out.Set("rollbacks", static_cast<double>(s.rollbacks));
  out.Set("rollbacksWaited", static_cast<double>(s.rollbacks_waited));
  out.Set("rollbacksRefused", static_cast<double>(s.rollbacks_refused));
  out.Set("clockBumps", static_cast<double>(s.clock_bumps));
  out.Set("lastTimeMs", static_cast<double>(s.last_time_ms));
  out.Set("clock", static_cast<double>(s.clock));
  out.Set("rollback", sfc_rollback_name(s.rollback));
  out.Set("maxWait", static_cast<double>(s.max_wait_ms));
  out.Set("maxDrift", static_cast<double>(s.max_drift_ms));
  out.Set("node", node);
  out.Set("guard", s.guard);
  return out;
}

Napi::Value GenClose(const Napi::CallbackInfo &info) {
  auto *box = static_cast<GenBox *>(info.Data());
  sfc_generator_free(box->gen);
  box->gen = nullptr;
  ForgetExternal(info.Env(), box);
  return info.Env().Undefined();
}

// A duration option: milliseconds as a Number (fractions allowed) or a
// bigint; the core rounds it up to whole ms and checks its range.
int64_t OptionMs(const Napi::Object &opts, const char *key) {
  Napi::Env env = opts.Env();
  Napi::Value v = opts.Get(key);
  if (v.IsUndefined()) {
    return -1;
  }
  double ms = 0;
  if (v.IsBigInt()) {
    bool lossless = false;
    int64_t whole = v.As<Napi::BigInt>().Int64Value(&lossless);
    if (!lossless) {
      whole = whole < 0 ? INT64_MIN : INT64_MAX;
    }
    ms = static_cast<double>(whole);
  } else if (v.IsNumber()) {
    ms = v.As<Napi::Number>().DoubleValue();
  } else {
    Invalid(env, "%s must be a number of milliseconds.", key);
  }
  int64_t out = 0;
  sfc_error err;
  if (sfc_duration_ms_from_double(key, ms, &out, &err) != SFC_OK) {
    Throw(env, err);
  }
  return out;
}

// generatorNew(handle, { node, rollback, maxWait, maxDrift, randomStart,
//                        stateDir, stateReserve, timeSource, guard, guardDir })
// → { next, nextString, nextIds, nextAt, fillAt, nowUs, stats, close }
Napi::Value GeneratorNew(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  if (!Arg(info, 1).IsObject()) {
    Invalid(env, "options must be an object.");
  }
  Napi::Object opts = Arg(info, 1).As<Napi::Object>();

  sfc_options options;
  sfc_options_init(&options);
  sfc_error err;

  std::vector<std::string> names;
  std::vector<sfc_node_value> node;
  Napi::Value node_value = opts.Get("node");
  if (!node_value.IsUndefined()) {
    if (!node_value.IsObject() || node_value.IsArray()) {
      Invalid(env, "node must be an object of node values by field name, "
                   "e.g. { worker: 3 } or { worker: 'auto' }.");
    }
    Napi::Object values = node_value.As<Napi::Object>();
    Napi::Array keys = values.GetPropertyNames();
    names.reserve(keys.Length());
    for (uint32_t i = 0; i < keys.Length(); i++) {
      names.push_back(ToText(keys.Get(i), "node field name"));
      Napi::Value v = values.Get(keys.Get(i));
      int64_t x = 0;
      if (v.IsString()) {
        std::string text = ToText(v, names.back().c_str());
        if (sfc_node_value_parse(text.c_str(), &x, &err) != SFC_OK) {
          Throw(env, err);
        }
      } else {
        x = ToI64(v, names.back().c_str());
        if (x < 0) {
          Invalid(env,
                  "node value %s must be a non-negative integer, 'auto' or "
                  "'host'.",
                  names.back().c_str());
        }
      }
      node.push_back({nullptr, x});
    }
    for (size_t i = 0; i < node.size(); i++) {
      node[i].name = names[i].c_str();
    }
    options.node = node.data();
    options.node_count = node.size();
  }

  Napi::Value rollback = opts.Get("rollback");
  if (!rollback.IsUndefined()) {
    std::string name = ToText(rollback, "rollback");
    if (sfc_rollback_parse(name.c_str(), &options.rollback, &err) != SFC_OK) {
      Throw(env, err);
    }
  }
  options.max_wait_ms = OptionMs(opts, "maxWait");
  options.max_drift_ms = OptionMs(opts, "maxDrift");
  int64_t reserve = OptionMs(opts, "stateReserve");
  if (reserve >= 0) {
    options.state_reserve_ms = reserve;
  }
  Napi::Value random_start = opts.Get("randomStart");
  if (!random_start.IsUndefined()) {
    if (!random_start.IsBoolean()) {
      Invalid(env, "randomStart must be true or false.");
    }
    options.random_start = random_start.As<Napi::Boolean>().Value() ? 1 : 0;
  }
  Napi::Value time_source = opts.Get("timeSource");
  if (!time_source.IsUndefined()) {
    std::string name = ToText(time_source, "timeSource");
    if (sfc_time_source_parse(name.c_str(), &options.time_source, &err) !=
        SFC_OK) {
      Throw(env, err);
    }
  }
  std::string state_dir;
  Napi::Value state_dir_value = opts.Get("stateDir");
  if (!state_dir_value.IsUndefined()) {
    state_dir = ToText(state_dir_value, "stateDir");
    options.state_dir = state_dir.c_str();
  }
  Napi::Value guard = opts.Get("guard");
  if (!guard.IsUndefined()) {
    if (!guard.IsBoolean()) {
      Invalid(env, "guard must be true or false.");
    }
    options.guard_off = guard.As<Napi::Boolean>().Value() ? 0 : 1;
  }
  std::string guard_dir;
  Napi::Value guard_dir_value = opts.Get("guardDir");
  if (!guard_dir_value.IsUndefined()) {
    guard_dir = ToText(guard_dir_value, "guardDir");
    options.guard_dir = guard_dir.c_str();
  }

  sfc_generator *gen = nullptr;
  if (sfc_generator_new(&layout, &options, &gen, &err) != SFC_OK) {
    Throw(env, err);
  }
  auto *box = new GenBox{
      gen, 0, layout.unit_us > kSyncWaitUs ? layout.unit_us : kSyncWaitUs,
      static_cast<int64_t>(sfc_generator_memory(gen))};
  Napi::MemoryManagement::AdjustExternalMemory(env, box->external);

  struct Method {
    const char *name;
    Napi::Value (*fn)(const Napi::CallbackInfo &);
  };
  static const Method methods[] = {
      {"nextString", GenNextString}, {"nextIds", GenNextIds},
      {"nextAt", GenNextAt},         {"fillAt", GenFillAt},
      {"nowUs", GenNowUs},           {"stats", GenStats},
      {"close", GenClose},
  };
  Napi::Object handle = Napi::Object::New(env);
  try {
    napi_value next = nullptr;
    Check(env, napi_create_function(env, "next", NAPI_AUTO_LENGTH, GenNext, box,
                                    &next));
    Napi::Function(env, next).AddFinalizer(ReleaseBox, box);
    box->refs++;
    handle.Set("next", next);
    for (const Method &m : methods) {
      Napi::Function fn = Napi::Function::New(env, m.fn, m.name, box);
      fn.AddFinalizer(ReleaseBox, box);
      box->refs++;
      handle.Set(m.name, fn);
    }
  } catch (...) {
    if (box->refs == 0) {
      sfc_generator_free(box->gen);
      ForgetExternal(env, box);
      delete box;
    }
    throw;
  }
  return handle;
}

// --- Module ----------------------------------------------------------------

Napi::Value Addon::SetErrorClasses(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (!Arg(info, 0).IsObject()) {
    Invalid(env, "expected the error classes by kind name.");
  }
  Napi::Object classes = Arg(info, 0).As<Napi::Object>();
  for (int s = SFC_OK + 1; s < SFC_STATUS_COUNT; s++) {
    auto status = static_cast<sfc_status>(s);
    if (status == SFC_WAIT) {
      continue;
    }
    Napi::Value cls = classes.Get(sfc_status_name(status));
    if (!cls.IsFunction()) {
      Invalid(env, "no error class for %s.", sfc_status_name(status));
    }
    error_classes[s] = Napi::Persistent(cls.As<Napi::Function>());
  }
  return env.Undefined();
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
  exports.Set("presets", Napi::Function::New(env, Presets, "presets"));
  exports.Set("layoutParse",
              Napi::Function::New(env, LayoutParse, "layoutParse"));
  exports.Set("layoutPreset",
              Napi::Function::New(env, LayoutPreset, "layoutPreset"));
  exports.Set("layoutInfo", Napi::Function::New(env, LayoutInfo, "layoutInfo"));
  exports.Set("epochParse", Napi::Function::New(env, EpochParse, "epochParse"));
  exports.Set("decode", Napi::Function::New(env, Decode, "decode"));
  exports.Set("formatId", Napi::Function::New(env, FormatId, "formatId"));
  exports.Set("parseId", Napi::Function::New(env, ParseId, "parseId"));
  exports.Set("encode", Napi::Function::New(env, Encode, "encode"));
  exports.Set("range", Napi::Function::New(env, Range, "range"));
  exports.Set("generatorNew",
              Napi::Function::New(env, GeneratorNew, "generatorNew"));
  exports.Set("version", sfc_version_string());
}

} // namespace

NODE_API_ADDON(Addon)
