// Node-API glue for snowflake-c: converts JavaScript values to the core's
// types and back, and turns an sfc_status into the matching error class of
// node/errors.js. Every decision about layouts, IDs and time is the core's.
//
// Context-aware: all state lives in the per-environment Addon instance (the
// error classes, the table of generators) or in objects owned by JavaScript
// values, so the addon loads in any number of worker threads.
#include <napi.h>
#include <snowflake_c.h>

#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0; // 2^53 - 1
constexpr int64_t kSyncWaitUs = 10000;
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
    if (sfc_id_parse(text.data(), text.size(), SFC_ENCODING_DEC, &x, &err) !=
        SFC_OK) {
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

// --- The core's tables -------------------------------------------------------

// A table name in JavaScript's casing: "max_wait_ms" → "maxWaitMs".
std::string Camel(const char *name) {
  std::string out;
  for (bool upper = false; *name != '\0'; name++) {
    if (*name == '_') {
      upper = true;
    } else {
      out += upper ? static_cast<char>(
                         std::toupper(static_cast<unsigned char>(*name)))
                   : *name;
      upper = false;
    }
  }
  return out;
}

// A bigint beyond 64 bits as the double nearest it, so that the core, not
// the glue, says that it is too large (or negative) for what it was given to.
double BigIntDouble(Napi::BigInt value) {
  size_t count = value.WordCount();
  std::vector<uint64_t> words(count);
  int sign = 0;
  value.ToWords(&sign, &count, words.data());
  double d = 0;
  for (size_t i = count; i-- > 0;) {
    d = d * 18446744073709551616.0 + static_cast<double>(words[i]);
  }
  return sign != 0 ? -d : d;
}

// A JavaScript value as the core takes one (sfc_options_set,
// sfc_node_value_set): undefined and null are "not given", a safe integer is
// INT and any other Number DOUBLE, a bigint INT or UINT, a string TEXT (kept
// in `keep`, which must outlive the value: a path is held by pointer until
// sfc_generator_new). An array or an object has no such type: it goes as a
// LIST or MAP, which the core refuses, naming the option.
sfc_value ToValue(const Napi::Value &value, std::deque<std::string> &keep) {
  sfc_value v = {SFC_TYPE_NONE, 0, 0, 0, nullptr, 0, 0};
  switch (value.Type()) {
  case napi_undefined:
  case napi_null:
    break;
  case napi_boolean:
    v.type = SFC_TYPE_BOOL;
    v.i = value.As<Napi::Boolean>().Value() ? 1 : 0;
    break;
  case napi_number:
    v.d = value.As<Napi::Number>().DoubleValue();
    v.type = IsSafeInteger(v.d) ? SFC_TYPE_INT : SFC_TYPE_DOUBLE;
    v.i = v.type == SFC_TYPE_INT ? static_cast<int64_t>(v.d) : 0;
    break;
  case napi_bigint: {
    bool lossless = false;
    auto big = value.As<Napi::BigInt>();
    if ((v.i = big.Int64Value(&lossless)), lossless) {
      v.type = SFC_TYPE_INT;
    } else if ((v.u = big.Uint64Value(&lossless)), lossless) {
      v.type = SFC_TYPE_UINT;
    } else {
      v.type = SFC_TYPE_DOUBLE;
      v.d = BigIntDouble(big);
    }
    break;
  }
  case napi_string:
    keep.push_back(value.As<Napi::String>().Utf8Value());
    v.type = SFC_TYPE_TEXT;
    v.text = keep.back().c_str();
    v.len = keep.back().size();
    break;
  default:
    v.type = value.IsArray() ? SFC_TYPE_LIST : SFC_TYPE_MAP;
  }
  return v;
}

// A value from the core's tables. UINT is a bigint where it holds IDs and
// field maxima (`wide`), else a Number as counters have always been.
Napi::Value FromValue(Napi::Env env, const sfc_value &v, bool wide) {
  switch (v.type) {
  case SFC_TYPE_BOOL:
    return Napi::Boolean::New(env, v.i != 0);
  case SFC_TYPE_INT:
    return Napi::Number::New(env, static_cast<double>(v.i));
  case SFC_TYPE_UINT:
    return wide ? FromU64(env, v.u)
                : Napi::Number::New(env, static_cast<double>(v.u));
  case SFC_TYPE_DOUBLE:
    return Napi::Number::New(env, v.d);
  case SFC_TYPE_TEXT:
    return v.text != nullptr ? Napi::String::New(env, v.text, v.len)
                             : env.Null();
  default:
    return env.Null();
  }
}

// The rows of one of the core's static tables, walked with `at` (0, 1, …
// until NULL), each made an object by `fill`.
template <typename Info, typename Fill>
Napi::Array TableRows(Napi::Env env, const Info *(*at)(size_t), Fill fill) {
  Napi::Array out = Napi::Array::New(env);
  const Info *info = nullptr;
  for (uint32_t i = 0; (info = at(i)) != nullptr; i++) {
    Napi::Object row = Napi::Object::New(env);
    fill(row, *info);
    out.Set(i, row);
  }
  return out;
}

// statuses() → [{ status, name, message, isError }]: errors.js makes one
// class per error kind from it.
Napi::Value Statuses(const Napi::CallbackInfo &info) {
  return TableRows(info.Env(), sfc_status_at,
                   [](Napi::Object row, const sfc_status_info &s) {
                     row.Set("status", static_cast<double>(s.status));
                     row.Set("name", s.name);
                     row.Set("message", s.message);
                     row.Set("isError", s.is_error != 0);
                   });
}

// options() → the generator's options, named in JavaScript's casing:
// [{ name, type, default, min?, max?, choices?, doc }]
Napi::Value Options(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  return TableRows(env, sfc_option_at,
                   [env](Napi::Object row, const sfc_option_info &o) {
                     row.Set("name", Camel(o.name));
                     row.Set("type", sfc_type_name(o.type));
                     row.Set("default", o.default_text);
                     if (o.type == SFC_TYPE_DURATION) {
                       row.Set("min", static_cast<double>(o.min));
                       row.Set("max", static_cast<double>(o.max));
                     }
                     if (o.choices != nullptr) {
                       Napi::Array choices = Napi::Array::New(env);
                       for (uint32_t c = 0; o.choices[c] != nullptr; c++) {
                         choices.Set(c, o.choices[c]);
                       }
                       row.Set("choices", choices);
                     }
                     row.Set("doc", o.doc);
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

// One of the trio's texts; undefined and null are "not given".
const char *OptionalText(const Napi::Value &value, const char *what,
                         std::string &text) {
  if (value.IsUndefined() || value.IsNull()) {
    return nullptr;
  }
  text = ToText(value, what);
  return text.c_str();
}

// layoutResolve(layout, preset, spec, epoch) → handle, by the core's one
// rule: `layout` a Layout's handle (or undefined), the trio as text
// (index.js writes a number or a Date in decimal ms).
Napi::Value LayoutResolve(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  std::string preset;
  std::string spec;
  std::string epoch;
  const sfc_layout *held =
      Arg(info, 0).IsUndefined() ? nullptr : &GetLayout(Arg(info, 0));
  sfc_layout layout;
  sfc_error err;
  if (sfc_layout_resolve(held, OptionalText(Arg(info, 1), "preset", preset),
                         OptionalText(Arg(info, 2), "layout", spec),
                         OptionalText(Arg(info, 3), "epoch", epoch), &layout,
                         &err) != SFC_OK) {
    Throw(env, err);
  }
  return WrapLayout(env, layout);
}

// layoutDescribe(handle) → the core's layout facts, keys in its order and in
// JavaScript's casing; "fields" is a list of field records.
Napi::Value LayoutDescribe(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  Napi::Object out = Napi::Object::New(env);
  char buf[SFC_SPEC_MAX];
  const sfc_fact_info *fact = nullptr;
  for (size_t i = 0; (fact = sfc_layout_fact_at(i)) != nullptr; i++) {
    sfc_value v;
    if (sfc_layout_fact(&layout, i, &v, buf, sizeof buf) != SFC_OK) {
      Throw(env, SFC_INVALID_ARGUMENT, "the layout facts table is broken.");
    }
    if (fact->type != SFC_TYPE_LIST) {
      out.Set(Camel(fact->name), FromValue(env, v, true));
      continue;
    }
    Napi::Array fields = Napi::Array::New(env, layout.field_count);
    for (unsigned f = 0; f < layout.field_count; f++) {
      Napi::Object field = Napi::Object::New(env);
      const sfc_fact_info *ff = nullptr;
      for (size_t j = 0; (ff = sfc_field_fact_at(j)) != nullptr; j++) {
        sfc_value fv;
        if (sfc_field_fact(&layout.fields[f], j, &fv) != SFC_OK) {
          Throw(env, SFC_INVALID_ARGUMENT, "the field facts table is broken.");
        }
        field.Set(Camel(ff->name), FromValue(env, fv, true));
      }
      fields.Set(f, field);
    }
    out.Set(Camel(fact->name), fields);
  }
  return out;
}

Napi::String IsoString(Napi::Env env, int64_t unix_ms) {
  char iso[SFC_ISO_MAX];
  size_t n = sfc_format_iso(unix_ms, iso, sizeof iso);
  return Napi::String::New(env, iso, n < sizeof iso ? n : sizeof iso - 1);
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

// instantParse(text) → Unix ms of "2024-01-01T00:00:00Z" or "1704067200000"
Napi::Value InstantParse(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  std::string text = ToText(Arg(info, 0), "time");
  int64_t ms = 0;
  sfc_error err;
  if (sfc_epoch_parse(text.c_str(), &ms, &err) != SFC_OK) {
    Throw(env, err);
  }
  return Napi::Number::New(env, static_cast<double>(ms));
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
  if (sfc_id_parse(text.data(), text.size(), encoding, &id, &err) != SFC_OK) {
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

// The ID of decode's arguments: a bigint, a decimal string or a safe integer
// Number, or text in `encoding` when one is given.
uint64_t DecodedId(const Napi::CallbackInfo &info) {
  return Arg(info, 2).IsUndefined()
             ? ToU64(Arg(info, 1), "id")
             : ParseAs(Arg(info, 1), ToEncoding(Arg(info, 2)));
}

sfc_parts DecodeOrThrow(Napi::Env env, const sfc_layout &layout, uint64_t id) {
  sfc_parts parts;
  sfc_error err;
  if (sfc_decode(&layout, id, &parts, &err) != SFC_OK) {
    Throw(env, err);
  }
  return parts;
}

// The 64-bit words of decode's result array (api.js reads the same slots).
enum DecodeSlot : size_t { kSlotId, kSlotTimeMs, kSlotTimeUs, kSlotValues };

template <typename T> void PutWord(double *slots, size_t i, T x) {
  static_assert(sizeof x == sizeof *slots, "a slot holds 64 bits");
  std::memcpy(&slots[i], &x, sizeof x);
}

// The words of decode's `out`: an ArrayBuffer with room for `fields` values.
// (An ArrayBuffer rather than a typed array, whose type takes longer to
// check than the decoding.)
double *DecodeSlots(const Napi::Value &out, unsigned fields) {
  Napi::Env env = out.Env();
  size_t bytes = 0;
  void *data = nullptr;
  if (out.IsArrayBuffer()) {
    Check(env, napi_get_arraybuffer_info(env, out, &data, &bytes));
  }
  size_t words = kSlotValues + fields;
  if (bytes < words * sizeof(double)) {
    Invalid(env, "decode needs an ArrayBuffer of %zu 64-bit words.", words);
  }
  return static_cast<double *>(data);
}

// decode(handle, id, encoding, out): the parts in the ArrayBuffer `out`
// rather than in a new object, which costs more than the decoding itself:
// the ID (as uint64), timeMs (double), timeUs (int64), then each field's
// value, a double when the field is at most 53 bits wide (as FieldValue),
// else a uint64. The canonical JSON and the ISO time are made on demand
// (partsJson, partsTime).
Napi::Value Decode(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  uint64_t id = DecodedId(info);
  double *slots = DecodeSlots(Arg(info, 3), layout.field_count);
  sfc_parts parts = DecodeOrThrow(env, layout, id);
  PutWord(slots, kSlotId, parts.id);
  PutWord(slots, kSlotTimeMs, static_cast<double>(parts.time_ms));
  PutWord(slots, kSlotTimeUs, parts.time_us);
  for (unsigned i = 0; i < layout.field_count; i++) {
    if (layout.fields[i].bits <= 53) {
      PutWord(slots, kSlotValues + i, static_cast<double>(parts.values[i]));
    } else {
      PutWord(slots, kSlotValues + i, parts.values[i]);
    }
  }
  return env.Undefined();
}

// partsJson(handle, id) → the canonical JSON of a decoded ID
Napi::Value PartsJson(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  sfc_parts parts = DecodeOrThrow(env, layout, ToU64(Arg(info, 1), "id"));
  char json[SFC_JSON_MAX];
  size_t n = sfc_parts_json(&layout, &parts, json, sizeof json);
  if (n >= sizeof json) {
    Throw(env, SFC_INVALID_ARGUMENT, "decoded JSON does not fit its buffer.");
  }
  return Napi::String::New(env, json, n);
}

// partsTime(handle, id) → the ISO-8601 time of a decoded ID
Napi::Value PartsTime(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  sfc_parts parts = DecodeOrThrow(env, layout, ToU64(Arg(info, 1), "id"));
  return IsoString(env, parts.time_ms);
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
    if (sfc_id_parse(text.data(), text.size(), SFC_ENCODING_DEC, &x, &err) !=
        SFC_OK) {
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
    values.push_back({nullptr, ToFieldValue(fields.Get(key), names.back()),
                      SFC_SOURCE_EXPLICIT});
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
// reference and the last one collected frees it and its slot. close() frees
// the generator early (the slot stays, answering "closed" until then),
// unless a call that runs JavaScript is under way on it (see Hold).
struct GenBox {
  sfc_generator *gen; // NULL once freed
  int refs;
  int64_t sync_wait_limit_us;
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
// is done with it (stats() sets properties, and a setter on
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
// (a closed generator is NULL, which the core answers), one attempt, and
// only when it does not issue an ID the C++ path above (whose exceptions
// become pending JavaScript exceptions here). The ID goes into nextIo; the
// call returns undefined. The box is used only before the call allocates
// (an error), so no finalizer can free it under the call.
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
  GenBox *box = table.boxes[slot];
  uint64_t id = 0;
  int64_t wait_us = 0;
  sfc_error err;
  sfc_status status = sfc_next_now(box->gen, &id, &wait_us, &err);
  if (status != SFC_OK) {
    try {
      id = NextAfter(Napi::Env(env), box, status, wait_us, err);
    } catch (const Napi::Error &error) {
      napi_throw(env, error.Value());
      return nullptr;
    } catch (...) {
      napi_throw_error(env, nullptr, "snowflake-c: unexpected failure.");
      return nullptr;
    }
  }
  io.id = id;
  return nullptr;
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

// stats() → the core's stats, keys in its order and in JavaScript's casing.
// A node value is a Number, or a bigint for a field wider than 53 bits (as
// in decoded parts).
Napi::Value GenStats(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  sfc_generator *gen = Live(info);
  // The layout and the stats' texts are the generator's.
  Hold hold(static_cast<GenBox *>(info.Data()));
  const sfc_layout *layout = sfc_generator_layout(gen);
  sfc_stats s;
  sfc_generator_stats(gen, &s);
  Napi::Object out = Napi::Object::New(env);
  const sfc_fact_info *fact = nullptr;
  for (size_t i = 0; (fact = sfc_stats_fact_at(i)) != nullptr; i++) {
    sfc_value v;
    if (sfc_stats_fact(&s, i, &v) != SFC_OK) {
      Throw(env, SFC_INVALID_ARGUMENT, "the stats table is broken.");
    }
    if (fact->type != SFC_TYPE_MAP) {
      out.Set(Camel(fact->name), FromValue(env, v, false));
      continue;
    }
    Napi::Object map = Napi::Object::New(env);
    const char *key = nullptr;
    for (size_t j = 0; sfc_stats_entry(&s, i, j, &key, &v) != 0; j++) {
      int index = sfc_layout_field_index(layout, key);
      map.Set(key, v.type == SFC_TYPE_UINT && index >= 0
                       ? FieldValue(env, layout->fields[index], v.u)
                       : FromValue(env, v, false));
    }
    out.Set(Camel(fact->name), map);
  }
  return out;
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

// Node values into `node`: an object by field name, or one value for the
// layout's only node field; undefined or null gives none (the environment's
// then). The core reads the value and names the field in its messages.
void SetNode(const Napi::Value &given, std::vector<sfc_node_value> &node,
             std::deque<std::string> &keep) {
  Napi::Env env = given.Env();
  sfc_error err;
  sfc_node_value one;
  if (given.IsUndefined() || given.IsNull()) {
    return;
  }
  if (!given.IsObject() || given.IsArray()) {
    sfc_value v = ToValue(given, keep);
    if (sfc_node_value_set(&one, nullptr, &v, &err) != SFC_OK) {
      Throw(env, err);
    }
    node.push_back(one);
    return;
  }
  Napi::Object values = given.As<Napi::Object>();
  Napi::Array keys = values.GetPropertyNames();
  for (uint32_t i = 0; i < keys.Length(); i++) {
    Napi::Value key = keys.Get(i);
    keep.push_back(ToText(key, "node field name"));
    const char *name = keep.back().c_str();
    sfc_value v = ToValue(values.Get(key), keep);
    if (sfc_node_value_set(&one, name, &v, &err) != SFC_OK) {
      Throw(env, err);
    }
    node.push_back(one);
  }
}

// generatorNew(handle, node, options) → { slot, nextString, nextIds, nextAt,
// fillAt, nowUs, stats, close, warning? }: `slot` is for generatorNext()
// (through nextIo) while the handle lives (its functions hold the
// generator); `warning` is the core's sfc_generator_warning text when it has
// one (the core decides whether to warn; index.js emits it). Every key of
// `options` is handed to the core by name as given ("maxWait"), which knows the
// options, their types and ranges, and refuses an unknown one.
Napi::Value GeneratorNew(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const sfc_layout &layout = GetLayout(Arg(info, 0));
  if (!Arg(info, 2).IsObject()) {
    Invalid(env, "options must be an object.");
  }
  Napi::Object opts = Arg(info, 2).As<Napi::Object>();

  sfc_options options;
  sfc_options_init(&options);
  sfc_error err;
  // Every text handed to the core lives here until sfc_generator_new: node
  // field names and paths are held by pointer. A deque never moves them.
  std::deque<std::string> keep;
  std::vector<sfc_node_value> node;
  SetNode(Arg(info, 1), node, keep);
  options.node = node.data();
  options.node_count = node.size();

  Napi::Array keys = opts.GetPropertyNames();
  for (uint32_t i = 0; i < keys.Length(); i++) {
    Napi::Value key = keys.Get(i);
    std::string name = ToText(key, "option name");
    sfc_value v = ToValue(opts.Get(key), keep);
    if (sfc_options_set(&options, name.data(), name.size(), &v, &err) !=
        SFC_OK) {
      Throw(env, err);
    }
  }

  sfc_generator *gen = nullptr;
  if (sfc_generator_new(&layout, &options, &gen, &err) != SFC_OK) {
    Throw(env, err);
  }
  auto *box =
      new GenBox{gen,
                 0,
                 layout.unit_us > kSyncWaitUs ? layout.unit_us : kSyncWaitUs,
                 static_cast<int64_t>(sfc_generator_memory(gen)),
                 env.GetInstanceData<Addon>()->generators,
                 0};
  TakeSlot(box);
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
    handle.Set("slot", static_cast<double>(box->slot));
    for (const Method &m : methods) {
      Napi::Function fn = Napi::Function::New(env, m.fn, m.name, box);
      fn.AddFinalizer(ReleaseBox, box);
      box->refs++;
      handle.Set(m.name, fn);
    }
    // Copied now: the core's text lives only as long as the generator.
    if (const char *warning = sfc_generator_warning(gen)) {
      handle.Set("warning", warning);
    }
  } catch (...) {
    if (box->refs == 0) {
      FreeBox(env, box);
    }
    throw;
  }
  return handle;
}

// --- Module ----------------------------------------------------------------

// setErrorClasses({ InvalidLayout, … }): the class of each error kind of
// the core's status table, by name (errors.js made them from statuses()).
Napi::Value Addon::SetErrorClasses(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (!Arg(info, 0).IsObject()) {
    Invalid(env, "expected the error classes by kind name.");
  }
  Napi::Object classes = Arg(info, 0).As<Napi::Object>();
  const sfc_status_info *s = nullptr;
  for (size_t i = 0; (s = sfc_status_at(i)) != nullptr; i++) {
    if (s->is_error == 0 || s->status >= SFC_STATUS_COUNT) {
      continue;
    }
    Napi::Value cls = classes.Get(s->name);
    if (!cls.IsFunction()) {
      Invalid(env, "no error class for %s.", s->name);
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
  exports.Set("statuses", Napi::Function::New(env, Statuses, "statuses"));
  exports.Set("options", Napi::Function::New(env, Options, "options"));
  exports.Set("presets", Napi::Function::New(env, Presets, "presets"));
  exports.Set("layoutResolve",
              Napi::Function::New(env, LayoutResolve, "layoutResolve"));
  exports.Set("layoutDescribe",
              Napi::Function::New(env, LayoutDescribe, "layoutDescribe"));
  exports.Set("instantParse",
              Napi::Function::New(env, InstantParse, "instantParse"));
  exports.Set("decode", Napi::Function::New(env, Decode, "decode"));
  exports.Set("partsJson", Napi::Function::New(env, PartsJson, "partsJson"));
  exports.Set("partsTime", Napi::Function::New(env, PartsTime, "partsTime"));
  exports.Set("formatId", Napi::Function::New(env, FormatId, "formatId"));
  exports.Set("parseId", Napi::Function::New(env, ParseId, "parseId"));
  exports.Set("encode", Napi::Function::New(env, Encode, "encode"));
  exports.Set("range", Napi::Function::New(env, Range, "range"));
  exports.Set("generatorNew",
              Napi::Function::New(env, GeneratorNew, "generatorNew"));
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
