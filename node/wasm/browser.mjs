// snowflake-c/wasm for browsers and Deno: the module fetched next to this
// file and compiled while it streams in.
import { wasmApiAsync } from './web.mjs';

const url = new URL('./snowflake_c.wasm', import.meta.url);

const snowflake = await wasmApiAsync(async (imports) => {
  const response = fetch(url);
  if (typeof WebAssembly.instantiateStreaming === 'function') {
    try {
      return (await WebAssembly.instantiateStreaming(response, imports)).instance;
    } catch (error) {
      // A server that does not say application/wasm: compile the bytes.
      if (!(error instanceof TypeError)) throw error;
    }
  }
  const bytes = await (await fetch(url)).arrayBuffer();
  return (await WebAssembly.instantiate(bytes, imports)).instance;
});

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
