'use strict';

// The error classes of the native addon's status table (error-kinds.js),
// registered with the addon, which throws them.

const binding = require('./binding').load(__dirname);
const defineErrors = require('./error-kinds');

const { SnowflakeError, ...kinds } = defineErrors(binding.call(binding.calls.statuses, []));
binding.setErrorClasses(kinds);

module.exports = { SnowflakeError, ...kinds };
