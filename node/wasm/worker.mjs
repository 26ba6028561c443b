// snowflake-c/wasm for edge workers (Cloudflare Workers, workerd): the
// module imported as a compiled WebAssembly.Module, as their bundlers do
// for a .wasm import; Workers never compile bytes at run time.
import wasmModule from './snowflake_c.wasm';
import { wasmApi } from './web.mjs';

// At once, with no top-level await: instantiating a compiled module is
// allowed where compiling bytes is not.
const snowflake = wasmApi((imports) => new WebAssembly.Instance(wasmModule, imports));

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
