// ES module entry: the same objects as the CommonJS entry (one copy of the
// classes, so instanceof works across both).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const snowflake = require('./index.js');

export const {
  Generator,
  Layout,
  Parts,
  decode,
  encode,
  formatId,
  parseId,
  range,
  presets,
  options,
  version,
  implementation,
  SnowflakeError,
  InvalidLayout,
  InvalidArgument,
  ClockMovedBackwards,
  TimeExhausted,
  GeneratorForked,
  WorkerUnavailable,
  StateError,
  OutOfMemory,
} = snowflake;

export default snowflake;
