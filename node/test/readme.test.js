'use strict';

// Every ```js example of README.md runs, as a user would run it, with
// `snowflake-c` installed (a symlink to this package). The examples use the
// presets' epochs, as a user would, and run one at a time: the other test
// files give their generators epochs of their own, so that the host-wide
// claims of the examples meet only each other.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PKG = path.join(__dirname, '..');
const readme = fs.readFileSync(path.join(PKG, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-readme-'));
fs.mkdirSync(path.join(dir, 'node_modules'));
fs.symlinkSync(PKG, path.join(dir, 'node_modules', 'snowflake-c'), 'dir');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

test('the README has examples', () => {
  assert.ok(examples.length >= 8, `${examples.length} examples`);
});

examples.forEach((code, i) => {
  const first = code.split('\n').find((l) => l.trim() !== '');
  // An example that leases needs a database: test/lease.test.js runs it.
  if (code.includes("worker: 'lease'")) return;
  test(`README example ${i + 1}: ${first}`, () => {
    const esm = /^import /m.test(code);
    const file = path.join(dir, `example-${i + 1}.${esm ? 'mjs' : 'js'}`);
    fs.writeFileSync(file, code);
    const env = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('SNOWFLAKE_')) delete env[name];
    execFileSync(process.execPath, [file], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30000,
    });
  });
});
