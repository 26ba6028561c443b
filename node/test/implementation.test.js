'use strict';

// The package entry's choice of build: the native addon where one fits,
// the WebAssembly build where none does (saying why, once) or where
// SNOWFLAKE_C_IMPLEMENTATION=wasm asks for it; the same IDs from both.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PACKAGE = path.join(__dirname, '..');

/** Runs `script` in a new Node.js with `env` added; gives its JSON output and stderr. */
function run(script, env, cwd = PACKAGE) {
  const environment = { ...process.env, ID: VECTOR.id, PRESET: VECTOR.layout.preset, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete environment[k];
  const r = spawnSync(process.execPath, ['-e', script], {
    cwd,
    env: environment,
    encoding: 'utf8',
  });
  return {
    status: r.status,
    out: r.status === 0 ? JSON.parse(r.stdout) : r.stdout,
    stderr: r.stderr,
  };
}

// What a process reports: the build, a decode, the warnings it got.
const REPORT = `
  const warnings = [];
  process.on('warning', (w) => warnings.push({ name: w.name, code: w.code, message: w.message }));
  const sfc = require(process.env.PKG);
  const parts = sfc.decode(process.env.ID, { preset: process.env.PRESET });
  setImmediate(() => console.log(JSON.stringify({
    implementation: sfc.implementation,
    enumerable: Object.keys(sfc).includes('implementation'),
    json: parts.toString(),
    warnings: warnings.filter((w) => w.code === 'SNOWFLAKE_C_WASM_FALLBACK'),
  })));
`;
// The first case of the shared decode vectors: its canonical JSON, from both builds.
const VECTOR = JSON.parse(
  fs.readFileSync(path.join(PACKAGE, '..', 'tests', 'vectors', 'decode.json'), 'utf8'),
)[0];
const DISCORD_JSON = VECTOR.json;

test('the native addon by default, where it is built', () => {
  const r = run(REPORT, { PKG: PACKAGE, SNOWFLAKE_C_IMPLEMENTATION: undefined });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.out.implementation, 'native');
  assert.equal(r.out.enumerable, false);
  assert.equal(r.out.json, DISCORD_JSON);
  assert.deepEqual(r.out.warnings, []);
});

test('SNOWFLAKE_C_IMPLEMENTATION=wasm: the WebAssembly build, with no warning', () => {
  const r = run(REPORT, { PKG: PACKAGE, SNOWFLAKE_C_IMPLEMENTATION: 'wasm' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.out.implementation, 'wasm');
  assert.equal(r.out.json, DISCORD_JSON);
  assert.deepEqual(r.out.warnings, []);
});

test('the ES module entry says the same', () => {
  const script = `import(process.env.PKG + '/index.mjs').then((m) =>
    console.log(JSON.stringify([m.implementation, m.default.implementation])))`;
  for (const want of ['native', 'wasm']) {
    const r = run(script, { PKG: PACKAGE, SNOWFLAKE_C_IMPLEMENTATION: want });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.out, [want, want]);
  }
});

test('an unknown SNOWFLAKE_C_IMPLEMENTATION is an error', () => {
  const r = run(REPORT, { PKG: PACKAGE, SNOWFLAKE_C_IMPLEMENTATION: 'fast' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /SNOWFLAKE_C_IMPLEMENTATION='fast' is neither 'native' nor 'wasm'/);
});

/** A copy of the package with no addon: no platform package, no build/. */
function packageWithoutAddon(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-no-addon-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const f of fs.readdirSync(PACKAGE)) {
    if (/\.(js|mjs)$/.test(f) || f === 'package.json') {
      fs.copyFileSync(path.join(PACKAGE, f), path.join(dir, f));
    }
  }
  fs.mkdirSync(path.join(dir, 'wasm'));
  for (const f of ['index.js', 'binding.js', 'snowflake_c.wasm']) {
    fs.copyFileSync(path.join(PACKAGE, 'wasm', f), path.join(dir, 'wasm', f));
  }
  return dir;
}

test('no addon fits: the WebAssembly build, and a warning, once, naming why', (t) => {
  const dir = packageWithoutAddon(t);
  const twice = `${REPORT}; require(process.env.PKG); require(process.env.PKG + '/index.js');`;
  const r = run(twice, { PKG: dir, SNOWFLAKE_C_IMPLEMENTATION: undefined }, dir);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.out.implementation, 'wasm');
  assert.equal(r.out.json, DISCORD_JSON);
  assert.equal(r.out.warnings.length, 1, JSON.stringify(r.out.warnings));
  const [w] = r.out.warnings;
  assert.equal(w.name, 'WasmFallbackWarning');
  assert.match(w.message, /^snowflake-c: no addon for [a-z0-9]+-[a-z0-9]+/);
  assert.match(w.message, /is not installed and there is no build from source in /);
  assert.match(w.message, /Using the WebAssembly build instead/);
  assert.match(w.message, /SNOWFLAKE_C_IMPLEMENTATION=wasm chooses it without this warning/);
});

test('no addon fits and SNOWFLAKE_C_IMPLEMENTATION=native: the loader error', (t) => {
  const dir = packageWithoutAddon(t);
  const r = run(REPORT, { PKG: dir, SNOWFLAKE_C_IMPLEMENTATION: 'native' }, dir);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /snowflake-c: no addon for /);
  assert.doesNotMatch(r.stderr, /Using the WebAssembly build/);
});
