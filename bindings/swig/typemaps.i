/*
 * typemaps.i — the typemaps of every language: what crosses the boundary
 * (IDs, numbers, text, layouts, options, out-parameters, batches, stats and
 * descriptions) and how, written once over glue.i's primitives.
 * SFC_SWIG_RESULT($result) is the wrapper's result as an sfc_swig_obj *.
 * `phptype` declares PHP's types; other languages ignore it.
 */

%{
/* IDs and field values: an integer from 0 to 2^64 - 1, or its decimal text
 * read by the core (a sign, a space or a NUL inside is refused). */
static int sfc_swig_id_in(sfc_swig_obj *o, uint64_t *out) {
  sfc_swig_error e;
  sfc_value v;
  char digits[32];
  memset(&e, 0, sizeof e);
  sfc_swig_read(o, &v);
  if (v.type == SFC_TYPE_INT && v.i >= 0) {
    *out = (uint64_t)v.i;
  } else if (v.type == SFC_TYPE_UINT) {
    *out = v.u;
  } else if (v.type == SFC_TYPE_INT) {
    snprintf(digits, sizeof digits, "%lld", (long long)v.i);
    sfc_id_parse(digits, strlen(digits), SFC_ENCODING_DEC, out, &e.error);
  } else if (v.type == SFC_TYPE_TEXT) {
    sfc_id_parse(v.text, v.len, SFC_ENCODING_DEC, out, &e.error);
  } else if (v.type == SFC_TYPE_DOUBLE) {
    sfk_fail(&e.error, SFC_INVALID_ARGUMENT,
             "the number %.17g is not an ID: give an integer from 0 to "
             "2^64 - 1, or its decimal text",
             v.d);
  } else {
    sfk_fail(&e.error, SFC_INVALID_ARGUMENT,
             "an ID is an integer or decimal text, not a %s",
             sfc_swig_type(o));
  }
  return sfc_swig_ok(&e);
}

/* Other 64-bit integers (clock readings, times): an integer, or decimal
 * text; never a silent 0 for anything else. */
static int sfc_swig_int64_in(sfc_swig_obj *o, int64_t *out, int argnum,
                             const char *function) {
  sfc_value v;
  sfc_swig_read(o, &v);
  if (v.type == SFC_TYPE_INT) {
    *out = v.i;
    return 1;
  }
  if (v.type == SFC_TYPE_TEXT && v.len > 0 && v.len < 21) {
    char *end;
    long long x;
    errno = 0;
    x = strtoll(v.text, &end, 10);
    if ((isdigit((unsigned char)v.text[0]) || v.text[0] == '-') &&
        errno == 0 && end == v.text + v.len) {
      *out = (int64_t)x;
      return 1;
    }
  }
  sfc_swig_raise_invalid("argument %d of %s must be a 64-bit integer, not %s",
                         argnum, function, sfc_swig_type(o));
  return 0;
}

/* Text for the core: no NUL inside (C would take it for the end). */
static const char *sfc_swig_text_in(sfc_swig_obj *o, const char *what) {
  sfc_swig_error e;
  sfc_value v;
  memset(&e, 0, sizeof e);
  sfc_swig_read(o, &v);
  if (v.type != SFC_TYPE_TEXT)
    sfk_fail(&e.error, SFC_INVALID_ARGUMENT, "%s must be text, not a %s",
             what, sfc_swig_type(o));
  else
    sfc_text_check(what, v.text, v.len, &e.error);
  return sfc_swig_ok(&e) ? v.text : NULL;
}

/* A layout argument: a Layout object, or a preset's name. */
static const sfc_layout *sfc_swig_layout_in(sfc_swig_obj *o,
                                            swig_type_info *ty,
                                            sfc_layout *preset) {
  sfc_swig_error e;
  sfc_value v;
  const sfc_layout *l = (const sfc_layout *)sfc_swig_ptr(o, ty);
  const char *name;
  memset(&e, 0, sizeof e);
  if (l) return l;
  sfc_swig_read(o, &v);
  if (v.type != SFC_TYPE_TEXT) {
    sfc_swig_raise_invalid("a layout is a Layout object or a preset's name, "
                           "not a %s",
                           sfc_swig_type(o));
    return NULL;
  }
  if (!(name = sfc_swig_text_in(o, "preset"))) return NULL;
  sfc_layout_resolve(NULL, name, NULL, NULL, preset, &e.error);
  return sfc_swig_ok(&e) ? preset : NULL;
}

static void sfc_swig_int_out(sfc_swig_obj *result, int64_t i) {
  sfc_value v = {SFC_TYPE_INT, i, 0, 0, NULL, 0, 0};
  sfc_swig_value_out(result, &v, 1);
}

static void sfc_swig_uint_out(sfc_swig_obj *result, uint64_t u) {
  sfc_value v = {SFC_TYPE_UINT, 0, u, 0, NULL, 0, 0};
  sfc_swig_value_out(result, &v, 1);
}

static void sfc_swig_text_out(sfc_swig_obj *result, const char *text) {
  sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, text, strlen(text), 0};
  sfc_swig_value_out(result, &v, 1);
}

/* A value the kit made (0) as the wrapper's result: read after the call
 * that made it. */
static void sfc_swig_made(sfc_swig_obj *result, int made, const sfk_obj *o) {
  if (made == 0) sfc_swig_set(result, *o);
}

static const sfc_value sfc_swig_none = {SFC_TYPE_NONE, 0, 0, 0, NULL, 0, 0};
%}

/* Pointers the core dereferences: never nil/null. */
%typemap(check) const sfc_parts *in, const sfc_parts *parts {
  if (!$1) {
    sfc_swig_raise_invalid("argument $argnum of $symname must be a Parts "
                           "object (from decode or Parts.new), not nil/null");
    SWIG_fail;
  }
}

%typemap(check) const sfc_uuid7 *uuid {
  if (!$1) {
    sfc_swig_raise_invalid("argument $argnum of $symname must be a Uuid7 "
                           "object (from uuid7_parse), not nil/null");
    SWIG_fail;
  }
}

/* Statuses become exceptions (%exception); the value itself is dropped. */
%typemap(out) sfc_status {
  (void)$1;
  sfc_swig_value_out(SFC_SWIG_RESULT($result), &sfc_swig_none, 0);
}

%typemap(out) sfc_status sfc_preset_at {
  if ($1 != SFC_OK) {
    sfc_swig_raise_invalid("preset index %zu is out of range: there are %zu "
                           "presets", (size_t)arg1, sfc_preset_count());
    SWIG_fail;
  }
  sfc_swig_value_out(SFC_SWIG_RESULT($result), &sfc_swig_none, 0);
}

/* Functions whose result comes from an argout typemap. */
%typemap(out, phptype = "SfcLayoutInfo") void sfc_layout_describe "";
%typemap(out, phptype = "array") void next_ids, void next_ids_at "";
%typemap(out, phptype = "string") size_t sfc_layout_spec, size_t sfc_parts_json,
    size_t sfc_format_iso, size_t sfc_format_id, size_t sfc_uuid7_json "(void)$1;";

/* Out-parameters become return values (an array when there are several). */
%typemap(in, numinputs = 0) sfc_layout *out (sfc_layout temp),
    sfc_parts *out (sfc_parts temp),
    sfc_layout_info *out (sfc_layout_info temp),
    sfc_uuid7 *out (sfc_uuid7 temp) {
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
}
%typemap(argout) sfc_layout *out, sfc_parts *out, sfc_layout_info *out,
    sfc_uuid7 *out {
  $*1_ltype *copy = ($*1_ltype *)malloc(sizeof *copy);
  if (!copy) {
    sfc_swig_error e = {{SFC_OUT_OF_MEMORY, "out of memory"}, NULL, 0};
    sfc_swig_raise_error(&e);
    SWIG_fail;
  }
  *copy = *$1;
  sfc_swig_append(SFC_SWIG_RESULT($result),
                  sfc_swig_new_ptr(copy, $1_descriptor));
}

%typemap(in, numinputs = 0) uint64_t *id (uint64_t temp = 0),
    uint64_t *min_id (uint64_t temp = 0), uint64_t *max_id (uint64_t temp = 0),
    int64_t *epoch_ms (int64_t temp = 0),
    const char **name (const char *temp = ""),
    const char **spec (const char *temp = "") "$1 = ($1_ltype)&temp;";
%typemap(argout) uint64_t *id, uint64_t *min_id, uint64_t *max_id
    "sfc_swig_uint_out(SFC_SWIG_RESULT($result), *$1);";
%typemap(argout) int64_t *epoch_ms
    "sfc_swig_int_out(SFC_SWIG_RESULT($result), (int64_t)*$1);";
%typemap(argout) const char **name, const char **spec
    "sfc_swig_text_out(SFC_SWIG_RESULT($result), *$1);";

/* Text the core writes into a buffer replaces the length it returns. */
%typemap(in, numinputs = 0) (char *buf, size_t cap) (char temp[SFC_JSON_MAX]) {
  $1 = temp;
  $2 = sizeof temp;
}
%typemap(argout) (char *buf, size_t cap) {
  sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, $1, strlen($1), 0};
  sfc_swig_value_out(SFC_SWIG_RESULT($result), &v, 0);
}

/* IDs and field values in: an integer >= 0 or decimal text. */
%typemap(in, phptype = "int|string") uint64_t id, uint64_t value {
  if (!sfc_swig_id_in(&$input, &$1)) SWIG_fail;
}

%typemap(in, phptype = "int|string") int64_t {
  if (!sfc_swig_int64_in(&$input, &$1, $argnum, "$symname")) SWIG_fail;
}

/* sfc_format_id's pad: nil/null the encoding's default form (flags 0),
 * true the fixed width, false the shortest; nothing else. */
%typemap(in, phptype = "?bool") unsigned pad {
  sfc_value v;
  sfc_swig_read(&$input, &v);
  if (v.type == SFC_TYPE_NONE) {
    $1 = 0;
  } else if (v.type == SFC_TYPE_BOOL) {
    $1 = v.i ? SFC_FORMAT_FIXED : SFC_FORMAT_SHORTEST;
  } else {
    sfc_swig_raise_invalid("pad must be true, false or nil/null (the "
                           "encoding's default form), not a %s",
                           sfc_swig_type(&$input));
    SWIG_fail;
  }
}

/* A batch size: an integer >= 0. */
%typemap(in, phptype = "int") size_t n {
  sfc_value v;
  sfc_swig_read(&$input, &v);
  if (v.type != SFC_TYPE_INT || v.i < 0) {
    sfc_swig_raise_invalid("a batch size must be an integer >= 0");
    SWIG_fail;
  }
  $1 = (size_t)v.i;
}

/* Other text for the core (a layout spec, a preset name, an epoch or an ID
 * as text). */
%typemap(in, phptype = "string") const char *spec, const char *name,
    const char *text {
  if (!($1 = ($1_ltype)sfc_swig_text_in(&$input, "$1_name"))) SWIG_fail;
}

/* Text the core reads by its length (sfc_uuid7_parse): whole, a NUL inside
 * included, for the core to name where it stands. */
%typemap(in, phptype = "string") (const char *text, size_t len) {
  sfc_value v;
  sfc_swig_read(&$input, &v);
  if (v.type != SFC_TYPE_TEXT) {
    sfc_swig_raise_invalid("argument $argnum of $symname must be text, not "
                           "a %s", sfc_swig_type(&$input));
    SWIG_fail;
  }
  $1 = ($1_ltype)v.text;
  $2 = v.len;
}

/* An epoch: Unix ms, or text for sfc_epoch_parse ("2024-01-01"). */
%typemap(in, phptype = "int|string") int64_t epoch_ms {
  sfc_swig_error e;
  sfc_value v;
  const char *text;
  memset(&e, 0, sizeof e);
  sfc_swig_read(&$input, &v);
  if (v.type == SFC_TYPE_INT) {
    $1 = v.i;
  } else {
    if (!(text = sfc_swig_text_in(&$input, "epoch"))) SWIG_fail;
    sfc_epoch_parse(text, &$1, &e.error);
    if (!sfc_swig_ok(&e)) SWIG_fail;
  }
}

/* A layout: a Layout object or a preset name. */
%typemap(in, phptype = "SfcLayout|string") const sfc_layout *layout
    (sfc_layout preset) {
  if (!($1 = ($1_ltype)sfc_swig_layout_in(&$input, $1_descriptor, &preset)))
    SWIG_fail;
}

/* The generator's arguments, read by the kit (sfk_setup_read). */
%typemap(in) sfc_swig_obj *first, sfc_swig_obj *opts
    "$1 = &$input;";

%typemap(in, phptype = "array") (const sfc_node_value *fields, size_t count)
    (sfk_named temp = {0}) {
  sfc_swig_error e;
  memset(&e, 0, sizeof e);
  if (!sfk_fields_read(&sfc_swig_host, SFC_SWIG_OBJ(&$input), &temp,
                       &e.error)) {
    sfk_named_free(&temp); /* before raising: Ruby's raise jumps */
    sfc_swig_raise_error(&e);
    SWIG_fail;
  }
  $1 = temp.value;
  $2 = temp.count;
}
%typemap(freearg) (const sfc_node_value *fields, size_t count)
    "sfk_named_free(&temp$argnum);";

%typemap(out, phptype = "array") sfc_stats (sfk_obj o) {
  sfc_swig_made(SFC_SWIG_RESULT($result),
                sfk_stats_out(&sfc_swig_host, &$1, &o), &o);
}
%typemap(out, phptype = "array") sfc_swig_description (sfk_obj o) {
  sfc_swig_made(SFC_SWIG_RESULT($result),
                sfk_layout_out(&sfc_swig_host, &$1.layout, &o), &o);
}

%typemap(out, phptype = "array") sfc_swig_next {
  sfc_value id = {$1.issued ? SFC_TYPE_UINT : SFC_TYPE_NONE, 0, $1.id, 0,
                  NULL, 0, 0};
  sfk_obj o;
  sfc_swig_out(NULL, &id, &o);
  sfc_swig_pair_out(SFC_SWIG_RESULT($result), o, $1.issued ? 0 : $1.wait_us);
}

%typemap(in, numinputs = 0) sfc_swig_batch *ids (sfc_swig_batch temp),
    sfc_swig_batch *ids_wait (sfc_swig_batch temp) {
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
}
%typemap(argout) sfc_swig_batch *ids {
  sfk_obj ids;
  sfk_ids_out(&sfc_swig_host, $1->ids, $1->filled, &ids);
  sfc_swig_set(SFC_SWIG_RESULT($result), ids);
}
%typemap(argout) sfc_swig_batch *ids_wait {
  sfk_obj ids;
  sfk_ids_out(&sfc_swig_host, $1->ids, $1->filled, &ids);
  sfc_swig_pair_out(SFC_SWIG_RESULT($result), ids, $1->wait_us);
}
%typemap(freearg) sfc_swig_batch *ids, sfc_swig_batch *ids_wait
    "free($1->ids);";
