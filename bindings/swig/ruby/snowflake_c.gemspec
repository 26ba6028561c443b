# frozen_string_literal: true

# Packed by bindings/swig/ruby/build-gem.sh, which lays out ext/snowflake_c/.
version = File.read(File.join(__dir__, 'ext/snowflake_c/snowflake_c.h'))[/SFC_VERSION_STRING "([^"]+)"/, 1]

Gem::Specification.new do |s|
  s.name = 'snowflake_c'
  s.version = version
  s.summary = '64-bit time-ordered unique IDs (the Snowflake family), over the snowflake-c C core'
  s.description = 'Generate, decode and encode Snowflake-style IDs with the same C core, layouts ' \
                  'and canonical JSON as the snowflake-c CLI, Python, Node and Java bindings.'
  s.authors = ['snowflake-c maintainers']
  s.license = 'MIT'
  s.required_ruby_version = '>= 2.7'
  s.files = Dir['README.md', 'ext/snowflake_c/*.{c,h,rb}']
  s.extensions = ['ext/snowflake_c/extconf.rb']
  s.require_paths = ['lib']
  s.metadata['rubygems_mfa_required'] = 'true'
end
