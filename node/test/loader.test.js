'use strict';

// binding.js: which addon file a package folder loads, and what it says when
// none fits.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { load, resolve, host, prebuildPath } = require('../binding');

/** A package folder holding the given files (empty). */
function pkg(t, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-loader-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const f of files) {
    fs.mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), '');
  }
  return dir;
}

const SHIPPED = [
  'prebuilds/linux-x64/snowflake-c.napi.glibc.node',
  'prebuilds/linux-x64/snowflake-c.napi.musl.node',
  'prebuilds/linux-arm64/snowflake-c.napi.glibc.node',
  'prebuilds/darwin-arm64/snowflake-c.napi.node',
  'prebuilds/win32-x64/snowflake-c.napi.node',
];

test('the prebuild of the platform, architecture and C library', (t) => {
  const dir = pkg(t, SHIPPED);
  const cases = [
    [{ platform: 'linux', arch: 'x64', libc: 'glibc' }, SHIPPED[0]],
    [{ platform: 'linux', arch: 'x64', libc: 'musl' }, SHIPPED[1]],
    [{ platform: 'linux', arch: 'arm64', libc: 'glibc' }, SHIPPED[2]],
    [{ platform: 'darwin', arch: 'arm64' }, SHIPPED[3]],
    [{ platform: 'win32', arch: 'x64' }, SHIPPED[4]],
  ];
  for (const [target, want] of cases) {
    assert.equal(resolve(dir, target), path.join(dir, want));
    assert.equal(prebuildPath(target), path.normalize(want));
  }
});

test('a build from source comes before the prebuilds', (t) => {
  const dir = pkg(t, [...SHIPPED, 'build/Release/snowflake_c.node']);
  const built = path.join(dir, 'build', 'Release', 'snowflake_c.node');
  assert.equal(resolve(dir, { platform: 'linux', arch: 'x64', libc: 'glibc' }), built);
  assert.equal(resolve(dir, { platform: 'freebsd', arch: 'riscv64' }), built);
});

test('no fitting addon: the error names the platform, the prebuilds and what to do', (t) => {
  const dir = pkg(t, SHIPPED);
  for (const [target, named] of [
    [{ platform: 'freebsd', arch: 'x64' }, 'freebsd-x64'],
    [{ platform: 'linux', arch: 'arm64', libc: 'musl' }, 'linux-arm64 (musl)'],
  ]) {
    assert.throws(
      () => resolve(dir, target),
      (error) => {
        assert.equal(error.code, 'SNOWFLAKE_C_NO_ADDON');
        assert.match(
          error.message,
          new RegExp(`no prebuilt addon for ${named.replace(/[()]/g, '\\$&')} `),
        );
        assert.match(
          error.message,
          /darwin-arm64, linux-arm64 \(glibc\), linux-x64 \(glibc, musl\), win32-x64/,
        );
        assert.match(error.message, /npm rebuild snowflake-c/);
        return true;
      },
    );
  }
  const empty = pkg(t, []);
  assert.throws(
    () => resolve(empty, { platform: 'linux', arch: 'x64', libc: 'glibc' }),
    /prebuilds for: none/,
  );
});

test('this process: its platform, architecture and C library', () => {
  const me = host();
  assert.equal(me.platform, process.platform);
  assert.equal(me.arch, process.arch);
  if (process.platform === 'linux') {
    const glibc = process.report.getReport().header.glibcVersionRuntime;
    assert.equal(me.libc, glibc ? 'glibc' : 'musl');
  } else {
    assert.equal(me.libc, undefined);
  }
});

test('an addon that does not load: the error says which file and what to do', (t) => {
  const dir = pkg(t, [prebuildPath(host())]);
  fs.writeFileSync(path.join(dir, prebuildPath(host())), 'not a shared library');
  assert.throws(
    () => load(dir),
    (error) => {
      assert.equal(error.code, 'SNOWFLAKE_C_NO_ADDON');
      assert.ok(error.message.includes(path.join(dir, prebuildPath(host()))), error.message);
      assert.match(error.message, /does not load on .*npm rebuild snowflake-c/s);
      assert.ok(error.cause instanceof Error);
      return true;
    },
  );
});

test('the package loads its addon', () => {
  const binding = load(path.join(__dirname, '..'));
  assert.equal(typeof binding.version, 'string');
});
