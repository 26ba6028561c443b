// The shared vectors in the browser, through the browser entry of
// snowflake-c/wasm (lib/browser.mjs of the page's build): the Node tests'
// own runners (node/test/fixtures/vector-runner.js and wasm-cases.js), which
// are CommonJS written for node:test, loaded here with the few Node.js
// modules they use given by small stand-ins. The results are left in
// window.results for the test in Node.js to read.
import snowflake from '/lib/browser.mjs';
import { assert } from './assert.mjs';

const FIXTURES = '/fixtures/';
const VECTORS = '/vectors/';

const text = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.text();
};

// node:test: describe() runs its body at once (names nest); test() queues.
const queued = [];
const names = [];
const nodeTest = {
  describe(name, body) {
    names.push(name);
    try {
      body();
    } finally {
      names.pop();
    }
  },
  test(name, options, body) {
    if (typeof options === 'function') [options, body] = [{}, options];
    queued.push({ name: [...names, name].join(' > '), skip: options.skip, body });
  },
};

// node:fs over the vector files, fetched first; node:path's join.
const vectorFiles = JSON.parse(await text(`${VECTORS}index.json`));
const vectorText = {};
for (const file of vectorFiles) vectorText[file] = await text(VECTORS + file);
const fs = {
  readdirSync: () => [...vectorFiles],
  readFileSync: (file) => vectorText[file.split('/').pop()],
};
const path = { join: (...parts) => parts.join('/') };

// process: an empty environment; warnings are the console's in a browser.
const process = { env: {}, pid: 0, on() {}, off() {} };

const sources = {};
for (const name of ['vector-runner.js', 'wasm-cases.js', 'own-epoch.js']) {
  sources[`./${name.replace(/\.js$/, '')}`] = await text(FIXTURES + name);
}
const builtins = {
  'node:test': nodeTest,
  'node:assert/strict': assert,
  'node:fs': fs,
  'node:path': path,
};
const loaded = {};
function require(name) {
  if (name in builtins) return builtins[name];
  if (!(name in loaded)) {
    if (!(name in sources)) throw new Error(`no stand-in for require('${name}')`);
    const module = { exports: {} };
    loaded[name] = module;
    // eslint-disable-next-line no-new-func
    new Function(
      'require',
      'module',
      'exports',
      '__dirname',
      'process',
      'setImmediate',
      sources[name],
    )(require, module, module.exports, FIXTURES, process, (fn) => setTimeout(fn, 0));
  }
  return loaded[name].exports;
}

require('./vector-runner')(snowflake, { hostClaim: false, stateFiles: false });
require('./wasm-cases')(snowflake);

const results = [];
for (const t of queued) {
  if (t.skip) {
    results.push({ name: t.name, status: 'skip', reason: t.skip });
    continue;
  }
  try {
    await t.body();
    results.push({ name: t.name, status: 'pass' });
  } catch (error) {
    results.push({ name: t.name, status: 'fail', error: String(error && (error.stack || error)) });
  }
}
window.results = results;
document.getElementById('status').textContent = 'done';
