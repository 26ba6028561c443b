# frozen_string_literal: true

# The Ruby runner of the SWIG module: every case of tests/vectors/*.json
# (contract.json and claims.json included), the canonical JSON compared
# with the CLI's, a two-thread generation test, the host-wide guard (across
# processes) and bad input (../tests/bad_input.json, shared with the PHP
# runner). Ends with "N passed, N failed"; exits 1 on any failure.
#
#   ruby -I <builddir>/bindings/swig/ruby bindings/swig/ruby/test_vectors.rb \
#        [VECTORS_DIR]        # SNOWFLAKE_C_CLI=<builddir>/core/cli/snowflake-c

require 'json'
require 'open3'
require 'set'
require 'tmpdir'
require 'snowflake_c'

VECTORS = ARGV[0] || File.expand_path('../../../tests/vectors', __dir__)
BAD_INPUT = File.expand_path('../tests/bad_input.json', __dir__)
CLI = ENV.fetch('SNOWFLAKE_C_CLI', nil)
KINDS = {
  SnowflakeC::FIELD_TIME => 'time', SnowflakeC::FIELD_SEQ => 'seq',
  SnowflakeC::FIELD_CLOCK => 'clock', SnowflakeC::FIELD_NODE => 'node'
}.freeze

# A failed expectation, with what was seen.
class Mismatch < StandardError; end

# An epoch of this run's own (2024-01-01 plus up to a day, in ms). The
# guard's claim is host-wide and keyed on the epoch: generators of this run
# that keep the guard on never meet those of a suite running beside it on
# the machine, which may use the same node values.
EPOCH = 1_704_067_200_000 + rand(86_400_000)

# A preset's fields with the run's epoch.
def own(preset)
  SnowflakeC.layout_parse(SnowflakeC.layout_spec(SnowflakeC.layout_preset(preset)), EPOCH)
end

# Warnings, collected instead of printed: the vectors' generators run with
# the guard off, and the guard's tests read what the module said. With
# $warnings_raise set, a warning raises (as a Warning.warn that makes
# warnings errors would).
$warnings = []
$warnings_raise = false
module CollectWarnings
  def warn(message, **)
    raise RuntimeError, message if $warnings_raise

    $warnings << message
    nil
  end
end
Warning.extend(CollectWarnings)

$passed = 0
$failed = 0

def check(name)
  yield
  $passed += 1
rescue Mismatch, SnowflakeC::Error, StandardError => e
  $failed += 1
  puts "FAIL #{name}: #{e.class}: #{e.message}"
end

def expect_eq(what, got, want)
  raise Mismatch, "#{what}: got #{got.inspect}, want #{want.inspect}" unless got == want
end

# Runs the block, which must raise the exception for status `kind`;
# returns the exception.
def expect_error(kind)
  yield
rescue SnowflakeC::Error => e
  raise Mismatch, "raised #{e.class} (#{e.message}), want #{kind}" unless e.status == kind
  raise Mismatch, "#{e.class} is not SnowflakeC::#{kind}" unless e.instance_of?(SnowflakeC.const_get(kind))

  e
else
  raise Mismatch, "no error, want #{kind}"
end

def layout_of(ref)
  if ref.key?('preset')
    SnowflakeC.layout_preset(ref['preset'])
  else
    SnowflakeC.layout_parse(ref['spec'], ref['epoch'])
  end
end

def close_enough(got, want)
  (got - want).abs <= 1e-9 * [want.abs, 1.0].max
end

def run_layout(c)
  if c.key?('error')
    expect_error(c['error']) { layout_of(c) }
    return
  end
  x = c['expect']
  layout = layout_of(c)
  info = SnowflakeC.layout_describe(layout)
  expect_eq('spec', SnowflakeC.layout_spec(layout), x['spec'])
  expect_eq('epoch_ms', layout.epoch_ms.to_s, x['epoch_ms'])
  expect_eq('unit_us', layout.unit_us.to_s, x['unit_us'])
  expect_eq('total_bits', layout.total_bits, x['total_bits'])
  fields = (0...layout.field_count).map do |i|
    f = layout.field(i)
    { 'name' => f.name, 'kind' => KINDS[f.kind], 'bits' => f.bits, 'shift' => f.shift, 'max' => f.max.to_s }
  end
  expect_eq('fields', fields, x['fields'])
  raise Mismatch, "ids_per_second #{info.ids_per_second}" unless close_enough(info.ids_per_second, x['ids_per_second'])
  raise Mismatch, "node_capacity #{info.node_capacity}" unless close_enough(info.node_capacity, x['node_capacity'])
  expect_eq('time_end_ms', info.time_end_ms.to_s, x['time_end_ms'])
  expect_eq('time_end', SnowflakeC.format_iso(info.time_end_ms), x['time_end'])
  expect_eq('max_id', info.max_id.to_s, x['max_id'])
end

# IDs decoded by the module, to compare with the CLI: [layout ref, id, json].
$decoded = []

def run_decode(c)
  layout = layout_of(c['layout'])
  if c.key?('error')
    expect_error(c['error']) { SnowflakeC.decode(layout, c['id']) }
    return
  end
  parts = SnowflakeC.decode(layout, c['id'])
  json = SnowflakeC.parts_json(layout, parts)
  expect_eq('json', json, c['json'])
  c['fields'].each { |name, v| expect_eq(name, parts.value(layout, name).to_s, v) }
  expect_eq('id', parts.id.to_s, c['id'])
  expect_eq('encode(decode(id))', SnowflakeC.encode(layout, parts).to_s, c['id'])
  $decoded << [c['layout'], c['id'], json]
end

# Both encoders: by name (encode_named) and through Parts (encode). Parts
# hold a value for every field, so a vector about naming — a field missing,
# unknown, or the time given as a field — is for encode_named alone.
def run_encode(c)
  layout = layout_of(c['layout'])
  time_us = Integer(c['time_ms'], 10) * 1000
  by_name = -> { SnowflakeC.encode_named(layout, time_us, c['fields']) }
  by_parts = lambda do
    parts = SnowflakeC::Parts.new
    parts.time_us = time_us
    c['fields'].each { |name, v| parts.set_value(layout, name, v) }
    SnowflakeC.encode(layout, parts)
  end
  encoders = [['encode_named', by_name]]
  names = c['fields'].keys
  if !names.include?('time') && names.size == layout.field_count - 1
    encoders << ['encode', by_parts]
  end
  encoders.each do |what, encode|
    if c.key?('error')
      expect_error(c['error'], &encode)
    else
      expect_eq(what, encode.call.to_s, c['id'])
    end
  rescue Mismatch => e
    raise Mismatch, "#{what}: #{e.message}"
  end
end

def run_range(c)
  layout = layout_of(c['layout'])
  t0 = Integer(c['t0_ms'], 10)
  t1 = Integer(c['t1_ms'], 10)
  if c.key?('error')
    expect_error(c['error']) { SnowflakeC.range(layout, t0, t1) }
  else
    expect_eq('[min, max]', SnowflakeC.range(layout, t0, t1).map(&:to_s), [c['min'], c['max']])
  end
end

def run_step(g, s)
  x = s['expect']
  now = Integer(s['now_us'], 10)
  if s['call'] == 'next'
    if x.key?('error')
      expect_error(x['error']) { g.next_at(now) }
      return
    end
    id, wait = g.next_at(now)
    expect_eq('outcome', [id&.to_s, id ? nil : wait.to_s], [x['id'], x['wait_us']])
  elsif s['call'] == 'next_ids'
    if x.key?('error')
      e = expect_error(x['error']) { g.next_ids_at(now, s['n']) }
      expect_eq('ids issued before the error', e.ids.map(&:to_s), x['ids'] || [])
      return
    end
    ids, wait = g.next_ids_at(now, s['n'])
    expect_eq('ids', ids.map(&:to_s), x['ids'] || [])
    expect_eq('wait_us', wait.to_s, x['wait_us'] || '0')
  else
    raise Mismatch, "unknown call #{s['call'].inspect}"
  end
end

# Every SNOWFLAKE_* variable goes before a generation script or a claims case.
def clear_snowflake_env
  ENV.each_key { |k| ENV.delete(k) if k.start_with?('SNOWFLAKE_') }
end

# The vectors give durations in ms as max_wait_ms: the option is max_wait.
# The guard is off: a script's clock is its own (tests/vectors/README.md).
def run_generate(c)
  clear_snowflake_env
  layout = layout_of(c['layout'])
  options = (c['options'] || {}).transform_keys { |k| k.delete_suffix('_ms') }.merge('guard' => false)
  if c.key?('error')
    expect_error(c['error']) { SnowflakeC::Generator.new(layout, options) }
    return
  end
  g = SnowflakeC::Generator.new(layout, options)
  begin
    c['steps'].each_with_index do |s, i|
      run_step(g, s)
    rescue Mismatch, SnowflakeC::Error => e
      raise Mismatch, "step #{i}: #{e.message}"
    end
  ensure
    g.close
  end
end

# state_reserve shows in no stat: it shows in the state file, whose mark a
# generator reserves that far ahead of its clock. On a layout of 1 us ticks
# the mark less the reserve is the tick it was reserved at, which lies
# between a clock reading before the generator was made and one after the
# file was read (the keeper may move the mark on meanwhile, always a reserve
# ahead of the clock).
RESERVE_SPEC = 'time:52@1us,worker:1,seq:10'
RESERVE_EPOCH = 1_704_067_200_000

def reserve_holds(value, ms)
  now = -> { Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond) - RESERVE_EPOCH * 1000 }
  Dir.mktmpdir('snowflake-c-swig') do |dir|
    before = now.call
    g = SnowflakeC::Generator.new(SnowflakeC.layout_parse(RESERVE_SPEC, RESERVE_EPOCH),
                                  { node: { worker: 0 }, state_dir: dir, guard: false, state_reserve: value })
    begin
      state = File.read(File.join(dir, 'worker-0.state'))
      after = now.call
    ensure
      g.close
    end
    mark = state[/^mark (\d+)$/, 1] or raise Mismatch, "no mark in the state file: #{state}"
    at = Integer(mark) - ms * 1000
    raise Mismatch, "a mark #{ms} ms ahead of tick #{at}, not within [#{before}, #{after}]" unless at.between?(before, after)
  end
end

# A duration option as a Float of ms (fractions allowed), read back from the
# stats for max_wait_ms and max_drift_ms, from the state file for
# state_reserve.
def run_duration(c)
  key = c['option']
  ms = Integer(c['seconds']) * 1000 + c['nanos'] / 1e6
  make = -> { SnowflakeC::Generator.new(own('twitter'), { node: { datacenter: 0, worker: 0 }, key.to_sym => ms }) }
  if c.key?('error')
    e = expect_error(c['error'], &make)
    raise Mismatch, "the message does not name #{key}: #{e.message}" unless e.message.include?(key)

    return
  end
  return reserve_holds(ms, Integer(c['ms'])) if key == 'state_reserve'

  g = make.call
  begin
    expect_eq(key, g.stats[:"#{key}_ms"], Integer(c['ms']))
  ensure
    g.close
  end
end

# claims.json: one side of a case, a generator of its layout, node values and
# guard, whose stats' guard is "held: …" (guard on) or "off". One with the
# guard off warns (once per text): the warning is collected with the rest.
def claim_side(side)
  g = SnowflakeC::Generator.new(layout_of(side['layout']), { 'node' => side['node'], 'guard' => side['guard'] })
  held = g.stats[:guard]
  return g if side['guard'] ? held.start_with?('held: ') : held == 'off'

  g.close
  raise Mismatch, "stats guard: got #{held.inspect}, want #{side['guard'] ? '"held: …"' : '"off"'}"
end

# `first` starts; `second` starts too, or is refused with WorkerUnavailable
# naming this process and every string of `message`; then `first` issues, or
# (first_closed) raises InvalidArgument holding every string of
# `closed_message`. Both are closed, the second first, whatever happens.
def run_claim(c)
  clear_snowflake_env
  first = second = nil
  begin
    begin
      first = claim_side(c['first'])
    rescue SnowflakeC::Error => e
      raise Mismatch, "the first did not start: #{e.class}: #{e.message}"
    end
    if c['second_starts']
      begin
        second = claim_side(c['second'])
      rescue SnowflakeC::Error => e
        raise Mismatch, "the second did not start: #{e.class}: #{e.message}"
      end
    else
      e = expect_error('WorkerUnavailable') { second = claim_side(c['second']) }
      (["live process #{Process.pid}"] + c['message']).each do |part|
        raise Mismatch, "'#{part}' is not in: #{e.message}" unless e.message.include?(part)
      end
    end
    # The same generator again took the value over: the first is closed and
    # says why; anything else leaves it open.
    raise Mismatch, "closed? is #{first.closed?}" unless first.closed? == !!c['first_closed']
    if c['first_closed']
      e = expect_error('InvalidArgument') { first.next_id }
      c['closed_message'].each do |part|
        raise Mismatch, "'#{part}' is not in: #{e.message}" unless e.message.include?(part)
      end
    else
      first.next_id
    end
  ensure
    second&.close
    first&.close
  end
end

# The string forms: format_id, parse_id (both forms), and decode_as.
def run_encoding(c)
  enc = c['encoding']
  if c.key?('error')
    e = expect_error(c['error']) do
      c.key?('text') ? SnowflakeC.parse_id(c['text'], enc) : SnowflakeC.format_id(Integer(c['id']), enc)
    end
    (c['message_has'] || []).each do |part|
      raise Mismatch, "'#{part}' is not in: #{e.message}" unless e.message.include?(part)
    end
    return
  end
  id = Integer(c['id'])
  if c.key?('text')
    expect_eq('parse_id', SnowflakeC.parse_id(c['text'], enc), id)
    return
  end
  expect_eq('default', SnowflakeC.format_id(id, enc), c['default'])
  expect_eq('default (pad nil)', SnowflakeC.format_id(id, enc, nil), c['default'])
  expect_eq('fixed (pad)', SnowflakeC.format_id(id, enc, true), c['fixed'])
  expect_eq('shortest', SnowflakeC.format_id(id, enc, false), c['shortest'])
  expect_eq('parse fixed', SnowflakeC.parse_id(c['fixed'], enc), id)
  expect_eq('parse shortest', SnowflakeC.parse_id(c['shortest'], enc), id)
end

# contract.json: the answers every language gives alike.

# A value of a stats or describe vector: ms values and IDs as decimal
# strings, maps by name.
def same?(got, want)
  return got.is_a?(Hash) && got.size == want.size && want.all? { |k, v| same?(got[k] || got[k.to_sym], v) } if want.is_a?(Hash)
  return got.to_s == want if want.is_a?(String) && got.is_a?(Integer)

  got == want
end

def expect_facts(what, got, want)
  want.each do |k, v|
    raise Mismatch, "#{what} #{k}: got #{got[k.to_sym].inspect}, want #{v.inspect}" unless same?(got[k.to_sym], v)
  end
end

# A twitter generator of datacenter 1, worker 1, the guard off; `extra`
# options on top.
def contract_generator(extra = {})
  SnowflakeC::Generator.new('twitter', { node: { datacenter: 1, worker: 1 }, guard: false }.merge(extra))
end

def table_names(table)
  case table
  when 'options' then (0..).lazy.map { |i| SnowflakeC.option_at(i) }.take_while(&:itself).map(&:name).to_a
  when 'errors' then error_classes.map { |c| c.name.delete_prefix('SnowflakeC::') }
  when 'stats' then with_generator { |g| g.stats.keys.map(&:to_s) }
  when 'describe' then SnowflakeC.describe('twitter').keys.map(&:to_s)
  when 'fields' then SnowflakeC.describe('twitter')[:fields].first.keys.map(&:to_s)
  else raise Mismatch, "unknown table #{table}"
  end
end

# The error classes of the module, in the order of the core's statuses.
def error_classes
  (0..).lazy.map { |i| SnowflakeC.status_at(i) }.take_while(&:itself).select { |s| s.is_error != 0 }.map do |s|
    cls = SnowflakeC.const_get(s.name)
    raise Mismatch, "#{cls} is not a SnowflakeC::Error" unless cls.superclass == SnowflakeC::Error

    cls
  end.to_a
end

# decode, encode and range of IDs made elsewhere, with no layout named: the
# module takes a Layout or a preset's name, so that none is nil, which it
# refuses with the case's kind (in a message of its own: no trio reaches the
# core's sfc_layout_resolve_for_ids here).
FOR_IDS = {
  'decode' => ->(c) { SnowflakeC.decode(nil, c['id']) },
  'encode' => ->(c) { SnowflakeC.encode_named(nil, Integer(c['time_ms'], 10) * 1000, c['fields']) },
  'range' => ->(c) { SnowflakeC.range(nil, Integer(c['t0_ms'], 10), Integer(c['t1_ms'], 10)) }
}.freeze

def run_for_ids(c)
  call = FOR_IDS.fetch(c['for_ids']) { raise Mismatch, "unknown call #{c['for_ids']}" }
  e = expect_error(c['error']) { call.call(c) }
  raise Mismatch, "the message does not name the layout: #{e.message}" unless e.message.include?('layout')
end

# What a new generator says: the module tells each text once per process,
# without its kind, so each warning of the case is a text told now holding
# every string of its message_has, in order, or one told before; nothing
# else is told.
def run_warnings(c, make)
  before = $warnings.dup
  told = warnings_of { make.call.close }
  at = -1
  c['warnings'].each do |w|
    has = ->(text) { w['message_has'].all? { |part| text.include?(part) } }
    i = told.index { |text| text && has.call(text) }
    if i.nil?
      raise Mismatch, "no #{w['kind']} warning holds #{w['message_has']}" if before.none?(&has)
    else
      raise Mismatch, "#{w['kind']} told out of order: #{told}" if i < at

      at = i
      told[i] = nil
    end
  end
  raise Mismatch, "warnings the case does not have: #{told.compact}" unless told.compact.empty?
end

def run_contract(c)
  ENV.delete('SNOWFLAKE_C_CONTRACT_UNSET')
  return expect_eq(c['table'], table_names(c['table']), c['names']) if c.key?('table')
  return run_for_ids(c) if c.key?('for_ids')

  make = if c.key?('call')
           g = contract_generator
           g.close
           -> { c['call'] == 'next_ids' ? g.next_ids(10) : g.public_send(c['call']) }
         elsif c.key?('option')
           -> { contract_generator(c['option'].to_sym => c['value']) }
         else
           args = c['args'].transform_keys(&:to_sym)
           # A Layout object is made first; the generator takes it as its layout.
           object = args.delete(:layout_object)
           args[:layout] = layout_of(object) if object
           -> { SnowflakeC::Generator.new(**args, node: c['node'], guard: c.fetch('guard', false)) }
         end
  if c.key?('error')
    e = expect_error(c['error'], &make)
    # The message in Ruby's terms: the options are keywords named as the
    # core names them (snake_case).
    said = c.dig('message_in_terms', 'snake')
    raise Mismatch, "'#{said}' is not in: #{e.message}" if said && !e.message.include?(said)

    return
  end
  return run_warnings(c, make) if c.key?('warnings')

  g = make.call
  return unless g.is_a?(SnowflakeC::Generator)

  begin
    expect_facts('stats', g.stats, c['stats']) if c.key?('stats')
    expect_facts('describe', SnowflakeC.describe(g.layout), c['describe']) if c.key?('describe')
  ensure
    g.close
  end
end

# uuid7.json: a UUIDv7's parts and canonical JSON, or the core's refusal.
def run_uuid7(c)
  if c.key?('error')
    e = expect_error(c['error']) { SnowflakeC.uuid7_parse(c['text']) }
    c['message_has'].each do |part|
      raise Mismatch, "'#{part}' is not in: #{e.message}" unless e.message.include?(part)
    end
    return
  end
  u = SnowflakeC.uuid7_parse(c['text'])
  expect_eq('uuid', u.text, c['uuid'])
  expect_eq('time_ms', u.unix_ms.to_s, c['time_ms'])
  expect_eq('time', SnowflakeC.format_iso(u.unix_ms), c['time'])
  expect_eq('rand_a', u.rand_a, c['rand_a'])
  expect_eq('rand_b', u.rand_b.to_s, c['rand_b'])
  expect_eq('json', SnowflakeC.uuid7_json(u), c['json'])
end

def kind_of_case(c)
  return :claim if c.key?('first') && c.key?('second')
  return :encoding if c.key?('encoding')
  return :uuid7 if c.key?('uuid') || (c.key?('text') && c.key?('message_has'))
  return :duration if c.key?('option') && c.key?('nanos')
  return :contract if %w[table call args option for_ids].any? { |k| c.key?(k) }
  return :generate if c.key?('steps') || c.key?('options')
  return :range if c.key?('t0_ms')
  return :encode if c.key?('time_ms')
  return :decode if c.key?('layout') && c.key?('id')
  return :layout if c.key?('spec') || c.key?('preset')

  nil
end

def run_vectors
  files = Dir[File.join(VECTORS, '*.json')].sort
  raise "no vector files in #{VECTORS}" if files.empty?

  files.each do |path|
    cases = JSON.parse(File.read(path))
    next unless cases.is_a?(Array) # schema.json

    cases.each do |c|
      name = "#{File.basename(path)}: #{c['description']}"
      check(name) do
        case kind_of_case(c)
        when :layout then run_layout(c)
        when :decode then run_decode(c)
        when :encode then run_encode(c)
        when :range then run_range(c)
        when :generate then run_generate(c)
        when :duration then run_duration(c)
        when :encoding then run_encoding(c)
        when :uuid7 then run_uuid7(c)
        when :contract then run_contract(c)
        when :claim then run_claim(c)
        else raise Mismatch, 'unknown case shape'
        end
      end
    end
  end
end

# The same IDs through `snowflake-c decode --json`: byte-for-byte the same.
def compare_with_cli
  unless CLI && File.executable?(CLI)
    puts 'note: SNOWFLAKE_C_CLI not set, canonical JSON not compared with the CLI'
    return
  end
  $decoded.group_by(&:first).each do |ref, rows|
    args = ref.key?('preset') ? ['--preset', ref['preset']] : ['--layout', ref['spec'], '--epoch', ref['epoch']]
    check("CLI decode --json #{args.join(' ')}") do
      out, err, status = Open3.capture3(CLI, 'decode', *args, '--json', *rows.map { |r| r[1] })
      raise Mismatch, "exit #{status.exitstatus}: #{err}" unless status.success?

      expect_eq('lines', out.lines.map(&:chomp), rows.map(&:last))
    end
  end
end

def generation_smoke
  check('two threads share one generator: unique, increasing per thread') do
    g = SnowflakeC::Generator.new(own('default'), node: { worker: 1 })
    per_thread = Array.new(2) do
      Thread.new do
        ids = []
        200.times do
          ids << g.next_id
          ids.concat(g.next_ids(100))
        end
        ids
      end
    end.map(&:value)
    per_thread.each_with_index do |ids, t|
      raise Mismatch, "thread #{t}: not strictly increasing" unless ids.each_cons(2).all? { |a, b| a < b }
    end
    all = per_thread.flatten
    expect_eq('distinct IDs', all.to_set.size, all.size)
    expect_eq('ids_issued', g.stats[:ids_issued], all.size)
    g.close
  end
  check('IDs decode to now and to the node value') do
    layout = own('twitter')
    g = SnowflakeC::Generator.new(layout, node: { datacenter: 3, worker: 7 })
    id = g.next_id
    parts = SnowflakeC.decode(layout, id)
    expect_eq('worker', parts.value(layout, 'worker'), 7)
    expect_eq('datacenter', parts.value(layout, 'datacenter'), 3)
    raise Mismatch, 'time is not now' unless (parts.time_ms - (Time.now.to_f * 1000)).abs < 5000

    expect_eq('node_sources', g.stats[:node_sources], { 'datacenter' => 'explicit', 'worker' => 'explicit' })
    g.close
  end
  check('node values from the pool of a state directory: distinct, released on close') do
    Dir.mktmpdir('snowflake-c-swig') do |dir|
      layout = own('default')
      opts = { node: { worker: 'auto' }, state_dir: dir }
      a = SnowflakeC::Generator.new(layout, opts)
      b = SnowflakeC::Generator.new(layout: SnowflakeC.layout_spec(layout), epoch: EPOCH, **opts)
      expect_eq('sources', [a.stats[:node_sources], b.stats[:node_sources]], [{ 'worker' => 'pool' }] * 2)
      values = [a.stats[:node]['worker'], b.stats[:node]['worker']]
      raise Mismatch, "both generators hold worker #{values[0]}" if values[0] == values[1]

      id = a.next_id
      expect_eq('worker in the ID', SnowflakeC.decode(layout, id).value(layout, 'worker'), values[0])
      a.close
      c = SnowflakeC::Generator.new(layout, opts)
      expect_eq('released value taken again', c.stats[:node]['worker'], values[0])
      raise Mismatch, 'the ID went backwards across close' unless c.next_id > id

      b.close
      c.close
    end
  end
end

# The layouts of the guard's tests, with the run's epoch: twitter's fields,
# and one 10-bit field over the same bits (its worker 35 is datacenter 1,
# worker 3), whose IDs are the same: one claim.
SPLIT = 'time:41@1ms,datacenter:5,worker:5,seq:12'
WIDE = 'time:41@1ms,worker:10,seq:12'

# The guard in a child process: "started", or the class and message of
# the error creating a generator of the layout ARGV[0], epoch ARGV[1] and
# node values ARGV[2] (JSON) there.
GUARD_CHILD = <<~RUBY
  require 'json'
  require 'snowflake_c'
  begin
    layout = SnowflakeC.layout_parse(ARGV[0], ARGV[1])
    SnowflakeC::Generator.new(layout, node: JSON.parse(ARGV[2])).close
    puts 'started'
  rescue SnowflakeC::Error => e
    puts e.class, e.message
  end
RUBY

def guard_child(spec, node)
  lib = File.dirname($LOADED_FEATURES.grep(%r{/snowflake_c\.so\z}).first)
  out, status = Open3.capture2(RbConfig.ruby, '-I', lib, '-e', GUARD_CHILD, spec, EPOCH.to_s, JSON.generate(node))
  raise Mismatch, "the child exited with #{status.exitstatus}" unless status.success?

  out.lines.map(&:chomp)
end

# WorkerUnavailable naming this process as the holder.
def expect_held_here(what, cls, message)
  expect_eq(what, cls, 'SnowflakeC::WorkerUnavailable')
  raise Mismatch, "#{what}: the message does not name pid #{Process.pid}: #{message}" \
    unless message.include?("live process #{Process.pid}")
end

# The warnings given while the block runs.
def warnings_of
  before = $warnings.size
  yield
  $warnings[before..]
end

# The host-wide guard: one claim per ID space and node bits.
def guard
  split = -> { SnowflakeC.layout_parse(SPLIT, EPOCH) }
  wide = -> { SnowflakeC.layout_parse(WIDE, EPOCH) }
  node = { datacenter: 1, worker: 3 }
  check('guard: another process with the same value gets WorkerUnavailable naming this one') do
    g = SnowflakeC::Generator.new(split.call, node: node)
    begin
      held = g.stats[:guard]
      raise Mismatch, "stats guard #{held.inspect}" unless held.start_with?('held: ')

      expect_held_here('the other process', *guard_child(SPLIT, node))
      expect_eq('the holder still issues IDs', g.next_ids(100).size, 100)
    ensure
      g.close
    end
    expect_eq('another process once the value is released', guard_child(SPLIT, node), ['started'])
  end
  check('guard: the same generator again in this process takes the value over') do
    g = SnowflakeC::Generator.new(split.call, node: node)
    again = nil
    begin
      last = g.next_ids(100).max
      again = SnowflakeC::Generator.new(split.call, node: node)
      raise Mismatch, 'the newer one starts after the older' unless again.next_id > last

      e = expect_error('InvalidArgument') { g.next_id }
      expect_eq('the older one says why', e.message,
                'the generator is closed: a newer generator of this process took node value ' \
                'datacenter=1,worker=3 (a cell or a reload run again); use that one')
      SnowflakeC::Generator.new(split.call, node: { datacenter: 1, worker: 4 }).close
    ensure
      again&.close
      g.close
    end
    SnowflakeC::Generator.new(split.call, node: node, guard: true).close
  end
  check('guard: field names do not split the claim') do
    g = SnowflakeC::Generator.new(split.call, node: node)
    begin
      e = expect_error('WorkerUnavailable') { SnowflakeC::Generator.new(wide.call, node: { worker: 35 }) }
      expect_held_here('this process', 'SnowflakeC::WorkerUnavailable', e.message)
      expect_held_here('another process', *guard_child(WIDE, { worker: 35 }))
      SnowflakeC::Generator.new(wide.call, node: { worker: 36 }).close
    ensure
      g.close
    end
    SnowflakeC::Generator.new(wide.call, node: { worker: 35 }).close
  end
  check('guard: off, two generators share a value') do
    a = SnowflakeC::Generator.new(split.call, node: node, guard: false)
    b = SnowflakeC::Generator.new(split.call, node: node, guard: false)
    expect_eq('stats guard', [a.stats[:guard], b.stats[:guard]], %w[off off])
    workers = [a.next_id, b.next_id].map { |id| SnowflakeC.decode(split.call, id).value(split.call, 'worker') }
    expect_eq('worker in both', workers, [3, 3])
    a.close
    b.close
  end
  check('guard: off warns once per text with the caller\'s line, a guarded generator does not') do
    # A field name no other test uses: its text is new to this process.
    layout = SnowflakeC.layout_parse('time:41@1ms,unguarded:10,seq:12', EPOCH)
    made = []
    make = ->(opts) { warnings_of { made << SnowflakeC::Generator.new(layout, opts) } }
    told = make.call(node: 5, guard: false)
    expect_eq('warnings', told.size, 1)
    raise Mismatch, "the warning: #{told[0].inspect}" \
      unless told[0].start_with?("#{__FILE__}:") && told[0].include?('unguarded=5') && told[0].include?('not guarded')

    expect_eq('the same text again', make.call(node: 5, guard: false), [])
    expect_eq('another text', make.call(node: 6, guard: false).size, 1)
    expect_eq('guarded', make.call(node: 7), [])
  ensure
    made&.each(&:close)
  end
  check('guard: a warning made an error raises from new, each time, and leaves nothing held') do
    # With a state_dir, whose lock a generator left behind would keep.
    Dir.mktmpdir('snowflake-c-swig') do |dir|
      opts = { node: 8, guard: false, state_dir: dir }
      layout = SnowflakeC.layout_parse('time:41@1ms,unguarded:10,seq:12', EPOCH)
      begin
        $warnings_raise = true
        2.times do
          SnowflakeC::Generator.new(layout, opts).close
          raise Mismatch, 'no error'
        rescue RuntimeError => e
          raise Mismatch, "raised #{e.message}" unless e.message.include?('unguarded=8')
        end
      ensure
        $warnings_raise = false
      end
      expect_eq('warnings once not an error', warnings_of { SnowflakeC::Generator.new(layout, opts).close }.size, 1)
    end
  end
  check('node values from env:NAME') do
    ENV['SNOWFLAKE_C_SWIG_INDEX'] = '6'
    g = SnowflakeC::Generator.new(own('twitter'), node: { datacenter: 'env:SNOWFLAKE_C_SWIG_INDEX', worker: 3 })
    begin
      expect_eq('node', g.stats[:node], { 'datacenter' => 6, 'worker' => 3 })
    ensure
      g.close
      ENV.delete('SNOWFLAKE_C_SWIG_INDEX')
    end
  end
end

# A layout whose sequence runs out at once (2 IDs per 1 ms tick): the
# generator waits for the clock on almost every call.
SLOW = 'time:41@1ms,worker:4,seq:1'

# The ticks (ms) an ID's time field holds, on SLOW.
def slow_tick(id)
  id >> 5
end

# Waits until the generator has had to wait (its stats count it): a call is
# then in its wait.
def until_waiting(g)
  sleep 0.001 while g.stats[:waits].zero?
end

def waiting
  check('waiting threads wait for the clock: unique IDs, the clock read after each tick, no busy loop') do
    g = SnowflakeC::Generator.new(SnowflakeC.layout_parse(SLOW, EPOCH), node: { worker: 2 })
    all = Array.new(2) { Thread.new { g.next_ids(150) + Array.new(50) { g.next_id } } }.flat_map(&:value)
    expect_eq('distinct IDs', all.uniq.size, 400)
    # 400 IDs at 2 a tick span 200 ticks at least, none ahead of the clock:
    # the calls waited for the clock to reach each tick.
    ticks = all.map { |id| slow_tick(id) }
    raise Mismatch, "IDs over #{ticks.max - ticks.min + 1} ticks, not 200 or more" if ticks.max - ticks.min < 199

    now = Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond) - EPOCH
    raise Mismatch, "an ID at tick #{ticks.max}, ahead of the clock's #{now}" if ticks.max > now

    # A wait is a sleep until the tick the core names, not a loop asking
    # again: a few waits a tick, not thousands.
    waits = g.stats[:waits]
    raise Mismatch, "#{waits} waits for #{ticks.max - ticks.min + 1} ticks: a busy loop" if waits > 8 * (ticks.max - ticks.min + 1)

    g.close
  end
  check('a waiting next_ids leaves the GVL: another thread runs during the call') do
    g = SnowflakeC::Generator.new(SnowflakeC.layout_parse(SLOW, EPOCH), node: { worker: 5 })
    t = Thread.new { g.next_ids(1000) } # one call, 500 ticks
    seen = []
    while t.alive?
      seen << g.stats[:ids_issued]
      sleep 0.001
    end
    expect_eq('IDs', t.value.size, 1000)
    # Counts between none and all: this thread read them while the call ran.
    raise Mismatch, "no count seen during the call: #{seen.uniq.inspect}" unless seen.any? { |n| n.positive? && n < 1000 }

    g.close
  end
  [['Thread#raise', ->(t) { t.raise(IOError, 'stop') }, IOError],
   ['Thread#kill', ->(t) { t.kill }, nil]].each do |how, stop, error|
    check("#{how} stops a waiting next_ids") do
      g = SnowflakeC::Generator.new(SnowflakeC.layout_parse(SLOW, EPOCH), node: { worker: 3 })
      caught = nil
      t = Thread.new do
        g.next_ids(200_000) # 100 s of IDs
      rescue IOError => e
        caught = e.class
      end
      until_waiting(g)
      stop.call(t)
      t.join
      # Joined, the call cut short: far fewer IDs than it asked for.
      issued = g.stats[:ids_issued]
      raise Mismatch, "#{issued} IDs issued: the call ran to its end" unless issued < 200_000

      expect_eq('exception', caught, error)
      expect_eq('generator still works', g.next_id.positive?, true)
      g.close
    end
  end
end

# close() from another thread or from a signal handler (Signal.trap) while
# next_id or next_ids waits for the clock (an ID 3 s ahead of it, rollback
# wait): the call ends with the closed error, where without the close it
# would have waited the 3 s and returned IDs.
def close_while_waiting
  closers = [
    ['another thread', ->(g) { Thread.new { sleep 0.1; g.close } }],
    ['a signal handler', lambda do |g|
      Signal.trap('USR1') { g.close }
      Thread.new { sleep 0.1; Process.kill('USR1', Process.pid) }
    end]
  ]
  calls = [['next_id', lambda(&:next_id)], ['next_ids', ->(g) { g.next_ids(10) }]]
  closers.product(calls).each_with_index do |((who, closer), (name, call)), i|
    check("close() from #{who} ends a waiting #{name}") do
      layout = SnowflakeC.layout_parse(WIDE, EPOCH)
      g = SnowflakeC::Generator.new(layout, node: { worker: 40 + i }, rollback: 'wait', max_wait: 10_000)
      g.next_at(g.now_us + 3_000_000)
      helper = closer.call(g)
      e = expect_error('InvalidArgument') { call.call(g) }
      helper.join
      expect_eq('message', e.message, 'the generator is closed: create a new one')
    ensure
      Signal.trap('USR1', 'DEFAULT')
    end
  end
end

# A process whose threads are waiting must still exit: a child whose two
# threads wait in next_ids for IDs that take a day (2 a second), once both
# wait, exits; it is reaped with its status 0. (Were the exit to wait for
# the calls, the run of this file would outlast run-tests.sh's limit.)
def exit_while_waiting
  check('a process exits while two threads wait in next_ids') do
    lib = File.dirname($LOADED_FEATURES.grep(%r{/snowflake_c\.so\z}).first)
    script = <<~RUBY
      require 'snowflake_c'
      g = SnowflakeC::Generator.new(SnowflakeC.layout_parse('time:41@1s,worker:4,seq:1', #{EPOCH}), node: { worker: 4 })
      2.times { Thread.new { g.next_ids(200_000) } }
      sleep 0.001 while g.stats[:waits] < 2
      exit 0
    RUBY
    pid = Process.spawn(RbConfig.ruby, '-I', lib, '-e', script)
    _, status = Process.wait2(pid)
    expect_eq('exit status', status.exitstatus, 0)
  end
end

# A generator of worker 1 for the block, closed after it: two alive at once
# would be refused by the guard.
def with_generator
  g = SnowflakeC::Generator.new(own('default'), node: { worker: 1 })
  yield g
ensure
  g&.close
end

# Bad input only Ruby can give, beside the shared list.
RUBY_BAD_INPUT = [
  ['decode an ID above 2^64 - 1 as an Integer', 'InvalidArgument', -> { SnowflakeC.decode('discord', 2**64) }],
  ['encode nil parts', 'InvalidArgument', -> { SnowflakeC.encode('twitter', nil) }],
  ['set an unknown field', 'InvalidArgument', -> { SnowflakeC::Parts.new.set_value('twitter', 'shard', 1) }],
  ['a layout field index out of range', 'InvalidArgument', -> { SnowflakeC.layout_preset('twitter').field(9) }],
  ['a node value that is an object', 'InvalidArgument',
   -> { SnowflakeC::Generator.new('default', node: { worker: Object.new }) }],
  ['a negative batch', 'InvalidArgument', -> { with_generator { |g| g.next_ids(-1) } }],
  ['a batch too large', 'InvalidArgument', -> { with_generator { |g| g.next_ids(2**40) } }],
  ['a closed generator', 'InvalidArgument', lambda {
    g = SnowflakeC::Generator.new(own('default'), node: { worker: 1 })
    g.close
    g.next_id
  }]
].freeze

# A case of bad_input.json: a function of the module, or the constructor.
def bad_call(c)
  return -> { SnowflakeC::Generator.new(*c['args']).close } if c['call'] == 'generator'

  -> { SnowflakeC.public_send(c['call'], *c['args']) }
end

def string_forms
  check('decode_as gives the parts of the number, in every encoding') do
    want = SnowflakeC.parts_json('discord', SnowflakeC.decode('discord', 175_928_847_299_117_063))
    %w[dec hex base32 base36 base58 base62].each do |enc|
      text = SnowflakeC.format_id(175_928_847_299_117_063, enc)
      expect_eq(enc, SnowflakeC.parts_json('discord', SnowflakeC.decode_as('discord', text, enc)), want)
    end
  end
  check('fixed strings sort as the IDs do') do
    ids = Array.new(20_000) { rand(2**64) >> rand(64) }.uniq.sort
    %w[dec hex base32 base36 base58 base62].each do |enc|
      texts = ids.map { |id| SnowflakeC.format_id(id, enc, true) }.shuffle.sort
      expect_eq(enc, texts.map { |t| SnowflakeC.parse_id(t, enc) }, ids)
    end
  end
  check('pad is true, false or nil') do
    expect_eq('dec', SnowflakeC.format_id(0, 'dec'), '0')
    expect_eq('dec pad', SnowflakeC.format_id(0, 'dec', true), '0' * 20)
    e = expect_error('InvalidArgument') { SnowflakeC.format_id(1, 'dec', 1) }
    raise Mismatch, e.message unless e.message.include?('pad must be')
  end
end

def bad_input
  shared = JSON.parse(File.read(BAD_INPUT)).map { |c| [c['name'], c['error'], bad_call(c)] }
  (shared + RUBY_BAD_INPUT).each do |name, kind, call|
    check("bad input: #{name} raises #{kind}") { expect_error(kind, &call) }
  end
  check('bad input: wrong types raise a Ruby error, not a crash') do
    [-> { SnowflakeC.range('twitter', 'a', 'b') }, -> { SnowflakeC.layout_parse(42, 0) },
     -> { SnowflakeC.parts_json('twitter', 'parts') },
     -> { SnowflakeC.encode('twitter', SnowflakeC::Parts.allocate) },
     -> { SnowflakeC.parts_json('twitter', SnowflakeC.layout_preset('twitter')) },
     -> { SnowflakeC::Generator.allocate.next_id },
     -> { with_generator { |g| g.dup.next_id } }].each do |call|
      call.call
      raise Mismatch, 'no error'
    rescue SnowflakeC::Error, TypeError, ArgumentError, ObjectPreviouslyDeleted
      nil
    end
  end
  check('every error is a SnowflakeC::Error with the status name') do
    e = expect_error('InvalidLayout') { SnowflakeC.layout_preset('flickr') }
    raise Mismatch, 'not a SnowflakeC::Error' unless e.is_a?(SnowflakeC::Error)
    raise Mismatch, 'message does not name the preset' unless e.message.include?('flickr')
  end
end

run_vectors
compare_with_cli
generation_smoke
guard
waiting
close_while_waiting
exit_while_waiting
string_forms
bad_input
puts "#{$passed} passed, #{$failed} failed"
exit($failed.zero? ? 0 : 1)
