'use strict';

// `npm pack` vendors the C core into the tarball; the tarball installs with
// no install script and no dependency, and, packed from the repository (no
// platform packages: scripts/release-node adds them), says how to build from
// source; built so, it works in an empty folder.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { own } = require('./fixtures/own-epoch');

const PKG = path.join(__dirname, '..');
// The presets' fields with the test run's own epoch: the guard stays on and
// meets no generator of another test or suite.
const DISCORD = JSON.stringify(own('time:42@1ms,worker:5,process:5,seq:12'));
const TWITTER = JSON.stringify(own('time:41@1ms,datacenter:5,worker:5,seq:12'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

test(
  'the packed tarball installs, builds from source on request and works',
  { timeout: 600000 },
  (t) => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sfc-pack-'));
    t.after(() => {
      fs.rmSync(tmp, { recursive: true, force: true });
      // postpack removes the vendored core; make sure of it even when pack failed.
      execFileSync(process.execPath, [path.join(PKG, 'scripts', 'vendor.js'), '--clean']);
    });
    const run = (args, cwd) =>
      execFileSync(npm, args, {
        cwd,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 300000,
        shell: process.platform === 'win32',
      });

    const packed = JSON.parse(run(['pack', '--json', '--pack-destination', tmp], PKG));
    const files = packed[0].files.map((f) => f.path);
    for (const want of [
      'binding.gyp',
      'index.js',
      'index.mjs',
      'index.d.ts',
      'index.d.mts',
      'errors.js',
      'README.md',
      'scripts/core-dir.js',
      'src/addon.cc',
      'core/include/snowflake_c.h',
      'core/src/internal.h',
      'core/src/generator.c',
      'core/kit/snowflake_c_host.h',
      'core/kit/host_out.c',
    ]) {
      assert.ok(files.includes(want), `the tarball lacks ${want}`);
    }
    assert.ok(
      !files.some((f) => f.startsWith('build/') || f.startsWith('test/')),
      'no build/ or test/',
    );
    assert.ok(!fs.existsSync(path.join(PKG, 'core')), 'postpack removed the vendored core');
    assert.ok(!files.includes('scripts/install.js'), 'no install script');

    // What npm reads of the packed manifest: no install script (npm makes
    // `node-gyp rebuild` one for a binding.gyp unless gypfile is false), and
    // nothing a user downloads for nothing.
    const tgz = path.join(tmp, packed[0].filename);
    const manifest = JSON.parse(
      execFileSync('tar', ['-xzOf', tgz, 'package/package.json'], { encoding: 'utf8' }),
    );
    for (const hook of ['preinstall', 'install', 'postinstall']) {
      assert.equal(manifest.scripts?.[hook], undefined, `an ${hook} script`);
    }
    assert.equal(manifest.gypfile, false);
    assert.deepEqual(manifest.dependencies ?? {}, {});
    // pg (leased node values) is an optional peer: npm installs none.
    for (const name of Object.keys(manifest.peerDependencies ?? {})) {
      assert.equal(
        manifest.peerDependenciesMeta?.[name]?.optional,
        true,
        `${name}: an optional peer`,
      );
    }

    const app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(
      path.join(app, 'package.json'),
      '{"name":"app","version":"1.0.0","private":true}',
    );
    const install = run(['install', '--no-audit', '--no-fund', tgz], app);
    assert.doesNotMatch(install, /install script/i);
    const installed = fs
      .readdirSync(path.join(app, 'node_modules'))
      .filter((f) => !f.startsWith('.'));
    assert.deepEqual(installed, ['snowflake-c']);

    // No platform package and no build: the WebAssembly build stands in,
    // saying why; asked for the native one, the error says how to build.
    const fallback = spawnSync(
      process.execPath,
      ['-e', "process.stdout.write(require('snowflake-c').implementation)"],
      { cwd: app, encoding: 'utf8', env: { ...process.env, SNOWFLAKE_C_IMPLEMENTATION: '' } },
    );
    assert.equal(fallback.stdout, 'wasm', fallback.stderr);
    assert.match(fallback.stderr, /WasmFallbackWarning: snowflake-c: no addon for /);
    const failed = (() => {
      try {
        execFileSync(process.execPath, ['-e', "require('snowflake-c')"], {
          cwd: app,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, SNOWFLAKE_C_IMPLEMENTATION: 'native' },
        });
      } catch (error) {
        return error.stderr;
      }
      return '';
    })();
    assert.match(failed, /SNOWFLAKE_C_NO_ADDON|no addon for/);
    assert.match(failed, /npm run build --prefix node_modules\/snowflake-c/);

    // The documented build from source (node-addon-api from the repository's
    // node_modules, as `npm install node-addon-api@8` would give it).
    run(
      ['install', '--no-audit', '--no-fund', path.join(PKG, 'node_modules', 'node-addon-api')],
      app,
    );
    run(
      ['run', 'build', '--prefix', path.join('node_modules', 'snowflake-c'), '--', '--jobs', '2'],
      app,
    );
    assert.ok(
      fs.existsSync(
        path.join(app, 'node_modules', 'snowflake-c', 'build', 'Release', 'snowflake_c.node'),
      ),
    );

    fs.writeFileSync(
      path.join(app, 'cjs.js'),
      `const { Generator, decode } = require('snowflake-c');
const g = new Generator({ ...${DISCORD}, node: { worker: 1, process: 2 } });
const id = g.nextId();
console.log(JSON.stringify(decode(175928847299117063n, { preset: 'discord' })));
console.log(decode(id, g.layout).fields.process, g.stats().guard.startsWith('held: '));`,
    );
    fs.writeFileSync(
      path.join(app, 'esm.mjs'),
      `import { Generator, InvalidLayout, Layout } from 'snowflake-c';
const g = new Generator({ ...${TWITTER}, node: { datacenter: 3, worker: 4 } });
console.log(g.nextIds(10).length);
try { Layout.preset('nope'); } catch (e) { console.log(e instanceof InvalidLayout, e.code); }`,
    );
    const cjs = execFileSync(process.execPath, ['cjs.js'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 30000,
    });
    assert.equal(
      cjs,
      '{"id":"175928847299117063","time_ms":1462015105796,"time":"2016-04-30T11:18:25.796Z","worker":1,"process":0,"seq":7}\n2 true\n',
    );
    const esm = execFileSync(process.execPath, ['esm.mjs'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 30000,
    });
    assert.equal(esm, '10\ntrue InvalidLayout\n');
  },
);
