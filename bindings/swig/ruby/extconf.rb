# frozen_string_literal: true

# Builds the SnowflakeC extension of the gem: the SWIG wrapper and the C core,
# both vendored into this directory by build-gem.sh.
require 'mkmf'

abort 'snowflake_c needs POSIX threads' unless have_library('pthread')
append_cflags(['-std=c11', '-fvisibility=hidden'])
create_makefile('snowflake_c')
