# frozen_string_literal: true

# IDs per second through the Ruby module, one thread.
#   ruby -I build/swig/bindings/swig/ruby bindings/swig/ruby/bench.rb
require 'snowflake_c'

def rate(label, ids_per_call, seconds: 1.0)
  calls = 0
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  stop = start + seconds
  while Process.clock_gettime(Process::CLOCK_MONOTONIC) < stop
    100.times { yield }
    calls += 100
  end
  elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
  printf("%-30s %12.0f IDs/s\n", label, calls * ids_per_call / elapsed)
end

gen = SnowflakeC::Generator.new('default', node: { worker: 1 })
wide = SnowflakeC::Generator.new(SnowflakeC.layout_parse('time:41@1ms,worker:2,seq:20', '2024-01-01'),
                                 node: { worker: 1 })
rate('next_id (default)', 1) { gen.next_id }
rate('next_id (seq:20)', 1) { wide.next_id }
rate('next_ids(1000) (seq:20)', 1000, seconds: 1.0) { wide.next_ids(1000) }
rate('decode + parts_json', 1) { SnowflakeC.parts_json('discord', SnowflakeC.decode('discord', 175_928_847_299_117_063)) }
# The string forms benchmarks/run reports for the other languages (fixed width).
rate('format_id base32', 1) { SnowflakeC.format_id(175_928_847_299_117_063, 'base32') }
rate('parse_id base32', 1) { SnowflakeC.parse_id('04W86BB0G4007', 'base32') }
rate('format_id base62', 1) { SnowflakeC.format_id(175_928_847_299_117_063, 'base62') }
rate('parse_id base62', 1) { SnowflakeC.parse_id('0Czks0tP37X', 'base62') }
