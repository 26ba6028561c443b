// What the ES module entries for browsers, Deno and workers share: the API
// of api.js over an instance of the module, with the host's timers and
// console for waits and warnings.
// The shared files as ES modules (esm/, written from the CommonJS ones by
// scripts/wasm-esm.js): browsers and Deno load no CommonJS.
import bindingModule from './esm/binding.mjs';
import defineErrors from './esm/error-kinds.mjs';
import createApi from './esm/api.mjs';

const { imports, createBinding } = bindingModule;

const webHost = {
  pause(us, signal) {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.ceil(us / 1000));
      if (signal?.aborted) done();
      else signal?.addEventListener('abort', done);
    });
  },
  warn(text, type, code) {
    console.warn(`${type} [${code}]: ${text}`);
  },
};

/** The module's imports, and the API once an instance of it is made with them. */
function connect() {
  let memory;
  return {
    imports: imports(() => memory),
    api(instance) {
      memory = instance.exports.memory;
      const binding = createBinding(instance);
      const errors = defineErrors(binding.call(binding.calls.statuses, []));
      const { SnowflakeError, ...kinds } = errors;
      binding.setErrorClasses(kinds);
      return createApi(binding, errors, webHost);
    },
  };
}

/** The API over the instance that `instantiate(imports)` makes at once. */
export function wasmApi(instantiate) {
  const c = connect();
  return c.api(instantiate(c.imports));
}

/** The same, for an `instantiate` that gives a promise of the instance. */
export async function wasmApiAsync(instantiate) {
  const c = connect();
  return c.api(await instantiate(c.imports));
}
