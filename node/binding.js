'use strict';

// Finds and loads the native addon, in this order:
//   1. the prebuilt addon of this platform: the npm package
//      @snowflake-c/<platform>-<arch>[-<abi>] (linux-x64-gnu, linux-arm64-musl,
//      darwin-arm64, win32-x64-gnu, …), one of snowflake-c's
//      optionalDependencies, of which npm installs only the one whose os, cpu
//      and libc fit;
//   2. a build from source in the package folder (build/Release: the
//      repository's, or `npm run build` in an installed package);
//   3. otherwise an error that names the platform, the package looked for and
//      how to build from source; the package entry (index.js, through
//      choose()) then loads the WebAssembly build instead and says why.
// glibc or musl is told from the running Node.js (its report's
// glibcVersionRuntime), else from /usr/bin/ldd, as @napi-rs packages do.

const fs = require('node:fs');
const path = require('node:path');

const BUILT = path.join('build', 'Release', 'snowflake_c.node');
const SCOPE = '@snowflake-c';

/** glibc or musl: the C library the running Node.js was built against. */
function linuxLibc() {
  const report = process.report;
  if (report && typeof report.getReport === 'function') {
    // Only the header is read: skip the network interfaces where Node.js can.
    const exclude = report.excludeNetwork;
    if (typeof exclude === 'boolean') report.excludeNetwork = true;
    try {
      return report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl';
    } catch {
      // fall through to ldd
    } finally {
      if (typeof exclude === 'boolean') report.excludeNetwork = exclude;
    }
  }
  try {
    return fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'musl' : 'glibc';
  } catch {
    return 'glibc';
  }
}

/** The platform, architecture and (on Linux) C library of this process. */
function host() {
  return {
    platform: process.platform,
    arch: process.arch,
    libc: process.platform === 'linux' ? linuxLibc() : undefined,
  };
}

/**
 * The platform package's name for a host, as @napi-rs names them: the libc
 * on Linux (gnu, musl), the toolchain's ABI on Windows (gnu: the addon is
 * built for MinGW-w64, with no C++ runtime DLL).
 */
function packageName({ platform, arch, libc }) {
  let abi = '';
  if (platform === 'linux') abi = libc === 'musl' ? '-musl' : '-gnu';
  else if (platform === 'win32') abi = '-gnu';
  return `${SCOPE}/${platform}-${arch}${abi}`;
}

/** The addon's file name in its platform package. */
function addonFile(target) {
  return `snowflake-c.${packageName(target).slice(SCOPE.length + 1)}.node`;
}

function describe({ platform, arch, libc }) {
  return `${platform}-${arch}${libc ? ` (${libc})` : ''}`;
}

/** The platform packages of the package folder `dir`, for messages. */
function shipped(dir) {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const names = Object.keys(manifest.optionalDependencies || {})
      .filter((name) => name.startsWith(`${SCOPE}/`))
      .sort();
    return names.join(', ') || 'none';
  } catch {
    return 'none';
  }
}

const FROM_SOURCE =
  'To build it from source (Python 3 and a C11 and C++17 compiler), run in your project ' +
  '`npm install node-addon-api@8` and then `npm run build --prefix node_modules/snowflake-c` ' +
  "(node-gyp rebuild, with npm's own node-gyp).";

function loadError(message, cause) {
  const error = new Error(message, cause ? { cause } : undefined);
  error.code = 'SNOWFLAKE_C_NO_ADDON';
  return error;
}

/** The addon file to load for the package folder `dir`, or an error that says what to do. */
function resolve(dir, target = host()) {
  const name = packageName(target);
  try {
    return require.resolve(name, { paths: [dir] });
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
  }
  const built = path.join(dir, BUILT);
  if (fs.existsSync(built)) return built;
  throw loadError(
    `snowflake-c: no addon for ${describe(target)}: the package ${name} is not installed ` +
      `and there is no build from source in ${path.join(dir, 'build')}. npm installs the ` +
      `package that fits with snowflake-c, as an optional dependency, unless optional ` +
      `dependencies are omitted (--omit=optional) or the lockfile was made without it; ` +
      `the platform packages are: ${shipped(dir)}. ${FROM_SOURCE}`,
  );
}

/** Loads the addon of the package folder `dir`. */
function load(dir = __dirname) {
  const file = resolve(dir);
  try {
    return require(file);
  } catch (error) {
    throw loadError(
      `snowflake-c: the addon ${file} does not load on ${describe(host())}: ` +
        `${error.message.split('\n')[0]}. ${FROM_SOURCE}`,
      error,
    );
  }
}

const IMPLEMENTATION_ENV = 'SNOWFLAKE_C_IMPLEMENTATION';

/**
 * Which build the package entry loads: { implementation: 'native', addon }
 * when the addon of `dir` loads, else { implementation: 'wasm', fallback }
 * where `fallback` says why no addon fits (undefined when the environment
 * chose the WebAssembly build). SNOWFLAKE_C_IMPLEMENTATION=native|wasm
 * chooses; with 'native' a missing addon is an error.
 */
function choose(dir = __dirname, env = process.env) {
  const wanted = env[IMPLEMENTATION_ENV] || undefined;
  if (wanted !== undefined && wanted !== 'native' && wanted !== 'wasm') {
    throw new Error(
      `snowflake-c: ${IMPLEMENTATION_ENV}='${wanted}' is neither 'native' nor 'wasm' (or unset)`,
    );
  }
  if (wanted === 'wasm') return { implementation: 'wasm' };
  try {
    return { implementation: 'native', addon: load(dir) };
  } catch (error) {
    if (wanted === 'native' || error.code !== 'SNOWFLAKE_C_NO_ADDON') throw error;
    return { implementation: 'wasm', fallback: error };
  }
}

module.exports = { load, resolve, choose, host, packageName, addonFile, IMPLEMENTATION_ENV };
