# frozen_string_literal: true

# ruby -I build/swig/bindings/swig/ruby bindings/swig/ruby/example.rb
require 'snowflake_c'

# A generator: a preset (or SnowflakeC.layout_parse(spec, epoch)) and the
# node values that make it unique. Keep one per process and share it.
gen = SnowflakeC::Generator.new('twitter', node: { datacenter: 1, worker: 3 })
id = gen.next_id
batch = gen.next_ids(1000)
puts "#{id} then #{batch.size} more, last #{batch.last}"

# Decoding needs no generator: the same JSON as `snowflake-c decode --json`.
parts = SnowflakeC.decode('discord', 175_928_847_299_117_063)
puts SnowflakeC.parts_json('discord', parts)
puts "worker #{parts.value('discord', 'worker')} at #{SnowflakeC.format_iso(parts.time_ms)}"

# And back, from field values by name.
puts SnowflakeC.encode_named('discord', parts.time_us, { worker: 1, process: 0, seq: 7 })

# The IDs of one day, for a range scan.
min_id, max_id = SnowflakeC.range('twitter', 1_700_000_000_000, 1_700_086_399_999)
puts "WHERE id BETWEEN #{min_id} AND #{max_id}"

begin
  SnowflakeC::Generator.new('twitter', node: { worker: 3 })
rescue SnowflakeC::InvalidArgument => e
  puts "#{e.status}: #{e.message[0, 60]}…"
end
p gen.stats[:ids_issued]
gen.close
