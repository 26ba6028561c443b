'use strict';

// npm's install hook. Nothing to do when a prebuilt addon fits this platform
// and loads; otherwise (or with `npm install --build-from-source`) builds the
// addon from the C sources in the package with node-gyp. The package works
// without this hook wherever a prebuild fits (`--ignore-scripts`, pnpm, Bun).

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { load } = require('../binding');

const pkgDir = path.join(__dirname, '..');

if (process.env.npm_config_build_from_source !== 'true') {
  try {
    load(pkgDir);
    process.exit(0);
  } catch (error) {
    console.error(`${error.message.split('. ')[0]}: building it from source.`);
  }
}

// npm's run-script names its bundled node-gyp; elsewhere, the one on PATH.
const nodeGyp = process.env.npm_config_node_gyp;
const [command, args] = nodeGyp
  ? [process.execPath, [nodeGyp, 'rebuild']]
  : ['node-gyp', ['rebuild']];
const result = spawnSync(command, args, {
  cwd: pkgDir,
  stdio: 'inherit',
  shell: !nodeGyp && process.platform === 'win32',
});
if (result.error) {
  console.error(`snowflake-c: cannot run node-gyp (${result.error.message}).`);
  process.exit(1);
}
process.exit(result.status ?? 1);
