'use strict';

// binding.js: which addon file a package folder loads (its platform
// package, or a build from source), and what it says when none fits.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { load, resolve, host, packageName, addonFile } = require('../binding');

const HOSTS = [
  [{ platform: 'linux', arch: 'x64', libc: 'glibc' }, '@snowflake-c/linux-x64-gnu'],
  [{ platform: 'linux', arch: 'x64', libc: 'musl' }, '@snowflake-c/linux-x64-musl'],
  [{ platform: 'linux', arch: 'arm64', libc: 'glibc' }, '@snowflake-c/linux-arm64-gnu'],
  [{ platform: 'darwin', arch: 'arm64' }, '@snowflake-c/darwin-arm64'],
  [{ platform: 'win32', arch: 'x64' }, '@snowflake-c/win32-x64-gnu'],
];

/**
 * A package folder: a package.json naming the platform packages as
 * optionalDependencies, the given files (empty), and an installed platform
 * package (node_modules/@snowflake-c/…, its main the addon) for each host of
 * `installed`.
 */
function pkg(t, files, installed = []) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-loader-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const dir = path.join(root, 'node_modules', 'snowflake-c');
  const write = (f, text = '') => {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
  };
  const optional = Object.fromEntries(HOSTS.map(([, name]) => [name, '1.0.0']));
  write(path.join(dir, 'package.json'), JSON.stringify({ optionalDependencies: optional }));
  for (const f of files) write(path.join(dir, f));
  for (const target of installed) {
    const at = path.join(root, 'node_modules', ...packageName(target).split('/'));
    write(path.join(at, 'package.json'), JSON.stringify({ main: addonFile(target) }));
    write(path.join(at, addonFile(target)));
  }
  return { dir, root };
}

const installedAddon = (root, target) =>
  path.join(root, 'node_modules', ...packageName(target).split('/'), addonFile(target));

test('the platform package of the platform, architecture and C library', (t) => {
  const targets = HOSTS.map(([target]) => target);
  const { dir, root } = pkg(t, [], targets);
  for (const [target, name] of HOSTS) {
    assert.equal(packageName(target), name);
    assert.equal(addonFile(target), `snowflake-c.${name.split('/')[1]}.node`);
    assert.equal(resolve(dir, target), installedAddon(root, target));
  }
});

test('the platform package comes first, then a build from source', (t) => {
  const glibc = { platform: 'linux', arch: 'x64', libc: 'glibc' };
  const { dir, root } = pkg(t, ['build/Release/snowflake_c.node'], [glibc]);
  const built = path.join(dir, 'build', 'Release', 'snowflake_c.node');
  assert.equal(resolve(dir, glibc), installedAddon(root, glibc));
  assert.equal(resolve(dir, { platform: 'linux', arch: 'x64', libc: 'musl' }), built);
  assert.equal(resolve(dir, { platform: 'freebsd', arch: 'riscv64' }), built);
});

test('no fitting addon: the error names the platform, the package and what to do', (t) => {
  const { dir } = pkg(t, [], [{ platform: 'linux', arch: 'x64', libc: 'glibc' }]);
  for (const [target, named, name] of [
    [{ platform: 'freebsd', arch: 'x64' }, 'freebsd-x64', '@snowflake-c/freebsd-x64'],
    [
      { platform: 'linux', arch: 'arm64', libc: 'musl' },
      'linux-arm64 (musl)',
      '@snowflake-c/linux-arm64-musl',
    ],
  ]) {
    assert.throws(
      () => resolve(dir, target),
      (error) => {
        assert.equal(error.code, 'SNOWFLAKE_C_NO_ADDON');
        assert.ok(
          error.message.includes(`no addon for ${named}: the package ${name} is not installed`),
          error.message,
        );
        assert.ok(error.message.includes(path.join(dir, 'build')), error.message);
        assert.match(error.message, /--omit=optional/);
        assert.match(
          error.message,
          /are: @snowflake-c\/darwin-arm64, @snowflake-c\/linux-arm64-gnu, @snowflake-c\/linux-x64-gnu, @snowflake-c\/linux-x64-musl, @snowflake-c\/win32-x64-gnu\./,
        );
        assert.match(
          error.message,
          /npm install node-addon-api@8` and then `npm run build --prefix node_modules\/snowflake-c`/,
        );
        return true;
      },
    );
  }
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-loader-'));
  t.after(() => fs.rmSync(empty, { recursive: true, force: true }));
  assert.throws(
    () => resolve(empty, { platform: 'linux', arch: 'x64', libc: 'glibc' }),
    /the platform packages are: none/,
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
  const { dir, root } = pkg(t, [], [host()]);
  const file = installedAddon(root, host());
  fs.writeFileSync(file, 'not a shared library');
  assert.throws(
    () => load(dir),
    (error) => {
      assert.equal(error.code, 'SNOWFLAKE_C_NO_ADDON');
      assert.ok(error.message.includes(file), error.message);
      assert.match(error.message, /does not load on .*npm run build --prefix/s);
      assert.ok(error.cause instanceof Error);
      return true;
    },
  );
});

test('the package loads its addon', () => {
  const binding = load(path.join(__dirname, '..'));
  assert.equal(typeof binding.version, 'string');
});
