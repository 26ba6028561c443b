// snowflake-c/wasm for edge workers (Cloudflare Workers, workerd): the
// module imported as a compiled WebAssembly.Module, as their bundlers do
// for a .wasm import; Workers never compile bytes at run time.
//
// Instantiated at the first use, not on import: the C library's start-up
// asks for random bytes, which Workers refuse outside a handler ("Disallowed
// operation called within global scope"). The classes exported here stand
// for the instance's own (construction, statics and instanceof reach them);
// `version` is filled in at that first use.
import wasmModule from './snowflake_c.wasm';
import { wasmApi } from './web.mjs';

let api;
/** The API over the instance, made at the first call. */
function instance() {
  if (api === undefined) {
    api = wasmApi((imports) => new WebAssembly.Instance(wasmModule, imports));
    version = api.version;
  }
  return api;
}

/** A stand-in for the instance's class `name`, made at its first use. */
function lazyClass(name) {
  const real = () => instance()[name];
  // A function target, so that the stand-in can be called and constructed.
  const stand = new Proxy(function () {}, {
    construct: (_, args, newTarget) =>
      Reflect.construct(real(), args, newTarget === stand ? real() : newTarget),
    apply: (_, self, args) => Reflect.apply(real(), self, args),
    get: (_, key) => (key === 'name' ? name : Reflect.get(real(), key)),
    has: (_, key) => Reflect.has(real(), key),
  });
  return stand;
}

const lazyFunction =
  (name) =>
  (...args) =>
    instance()[name](...args);

export let version;
export const Generator = lazyClass('Generator');
export const Layout = lazyClass('Layout');
export const Parts = lazyClass('Parts');
export const SnowflakeError = lazyClass('SnowflakeError');
export const InvalidLayout = lazyClass('InvalidLayout');
export const InvalidArgument = lazyClass('InvalidArgument');
export const ClockMovedBackwards = lazyClass('ClockMovedBackwards');
export const TimeExhausted = lazyClass('TimeExhausted');
export const GeneratorForked = lazyClass('GeneratorForked');
export const WorkerUnavailable = lazyClass('WorkerUnavailable');
export const StateError = lazyClass('StateError');
export const OutOfMemory = lazyClass('OutOfMemory');
export const decode = lazyFunction('decode');
export const encode = lazyFunction('encode');
export const formatId = lazyFunction('formatId');
export const parseId = lazyFunction('parseId');
export const range = lazyFunction('range');
export const presets = lazyFunction('presets');
export const options = lazyFunction('options');

/** The whole API, as the other entries' default export. */
export default {
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
  get version() {
    return instance().version;
  },
  SnowflakeError,
  InvalidLayout,
  InvalidArgument,
  ClockMovedBackwards,
  TimeExhausted,
  GeneratorForked,
  WorkerUnavailable,
  StateError,
  OutOfMemory,
};
