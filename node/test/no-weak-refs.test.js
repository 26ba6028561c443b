'use strict';

// snowflake-c/wasm where the runtime has neither FinalizationRegistry nor
// WeakRef (Cloudflare Workers before their 2025 compatibility dates; workerd
// itself in tests/web): everything works, close() is the way to release a
// generator, and layouts made again and again do not fill the module's
// memory. Each case in a child process whose globals lack both.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { EPOCH } = require('./fixtures/own-epoch');

const WASM = path.join(__dirname, '..', 'wasm');

// Uses `sfc` (the API) and `watch` (the counts of the module's layout
// allocations, or undefined), then prints what it saw.
const BODY = `
  const layout = 'time:41@1ms,worker:10,seq:12';
  const before = watch?.live();
  const g = new sfc.Generator({ layout, epoch: ${EPOCH}, node: 4 });
  const ids = [g.nextId(), ...g.nextIds(1000)];
  const fields = sfc.decode(ids[0], g.layout).fields;
  const issued = g.stats().idsIssued;
  g.close();
  let afterClose;
  try { g.nextId(); } catch (e) { afterClose = e.name + ': ' + e.message; }
  // 200 layouts (the generator's among them), made twice: more than api.js
  // caches. Each with a generator made and closed, and a decode.
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 200; i++) {
      const l = sfc.Layout.parse(layout, ${EPOCH} + i);
      new sfc.Generator({ layout: l, node: 5 }).close();
      sfc.decode(ids[0], { layout, epoch: ${EPOCH} + i });
    }
  }
  console.log(JSON.stringify({
    weak: typeof FinalizationRegistry + ' ' + typeof WeakRef,
    unique: new Set(ids).size,
    fields,
    issued,
    afterClose,
    layoutsKept: watch && watch.live() - before,
  }));
`;

const STRIP = 'delete globalThis.FinalizationRegistry; delete globalThis.WeakRef;';

// The CommonJS entry, and the layouts the module allocates counted through
// an instance whose exports are watched.
const COMMONJS = `${STRIP}
  const fs = require('node:fs');
  const { webcrypto } = require('node:crypto');
  const { imports, createBinding } = require(${JSON.stringify(path.join(WASM, 'binding.js'))});
  const defineErrors = require(${JSON.stringify(path.join(WASM, '..', 'error-kinds.js'))});
  const createApi = require(${JSON.stringify(path.join(WASM, '..', 'api.js'))});
  const nodeHost = require(${JSON.stringify(path.join(WASM, '..', 'node-host.js'))});
  const plain = require(${JSON.stringify(WASM)});
  plain.Generator && new plain.Generator({ layout: 'time:41@1ms,worker:10,seq:12', epoch: ${EPOCH}, node: 3 }).close();
  let memory;
  const module_ = new WebAssembly.Module(fs.readFileSync(${JSON.stringify(path.join(WASM, 'snowflake_c.wasm'))}));
  const instance = new WebAssembly.Instance(module_, imports(() => memory, webcrypto));
  memory = instance.exports.memory;
  let made = 0, freed = 0;
  const exports = { ...instance.exports };
  exports.layout_resolve = (...a) => { const p = instance.exports.layout_resolve(...a); if (p) made++; return p; };
  exports.layout_free = (p) => { freed++; return instance.exports.layout_free(p); };
  const binding = createBinding({ exports });
  const errors = defineErrors(binding.call(binding.calls.statuses, []));
  const { SnowflakeError, ...kinds } = errors;
  binding.setErrorClasses(kinds);
  const sfc = createApi(binding, errors, nodeHost);
  const watch = { live: () => made - freed };
  ${BODY}`;

// The ES modules of the entries for browsers, Deno and workers (web.mjs
// over esm/), on an instance made as worker.mjs makes it.
const MODULES = `${STRIP}
  const fs = await import('node:fs');
  const { wasmApi } = await import(${JSON.stringify(pathToFileURL(path.join(WASM, 'web.mjs')).href)});
  const module_ = new WebAssembly.Module(fs.readFileSync(${JSON.stringify(path.join(WASM, 'snowflake_c.wasm'))}));
  const sfc = wasmApi((imports) => new WebAssembly.Instance(module_, imports));
  const watch = undefined;
  ${BODY}`;

function run(args) {
  const r = spawnSync(process.execPath, ['--no-warnings', ...args], {
    encoding: 'utf8',
    timeout: 60000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function check(out) {
  assert.equal(out.weak, 'undefined undefined');
  assert.equal(out.unique, 1001);
  assert.deepEqual(out.fields, { worker: 4, seq: 0 });
  assert.equal(out.issued, 1001);
  assert.equal(out.afterClose, 'InvalidArgument: the generator is closed: create a new one');
}

test('snowflake-c/wasm (CommonJS) without FinalizationRegistry and WeakRef', () => {
  const out = run(['-e', COMMONJS]);
  check(out);
  // Equal layouts share one copy: 200 distinct ones, however often made.
  assert.equal(out.layoutsKept, 200);
});

test('the ES module entries for browsers and workers without FinalizationRegistry and WeakRef', () => {
  check(run(['--input-type=module', '-e', MODULES]));
});
