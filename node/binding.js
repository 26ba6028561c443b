'use strict';

// Finds and loads the native addon. A build from source (build/Release: the
// repository, or an install on a platform with no prebuild) comes first, then
// the prebuild for this platform, laid out as prebuildify does:
// prebuilds/<platform>-<arch>/snowflake-c.napi[.<libc>].node. node-gyp-build
// reads the same layout, but it takes every non-Alpine Linux for glibc and
// its error does not say what to do; here musl is told from the running
// Node.js itself.

const fs = require('node:fs');
const path = require('node:path');

const BUILT = path.join('build', 'Release', 'snowflake_c.node');

/** glibc or musl: the C library the running Node.js was built against. */
function linuxLibc() {
  const report = process.report;
  // Only the header is read: skip the network interfaces where Node.js can.
  const exclude = report.excludeNetwork;
  if (typeof exclude === 'boolean') report.excludeNetwork = true;
  try {
    return report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl';
  } finally {
    if (typeof exclude === 'boolean') report.excludeNetwork = exclude;
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

/** The prebuild's path inside the package, for a host. */
function prebuildPath({ platform, arch, libc }) {
  const file = `snowflake-c.napi${libc ? `.${libc}` : ''}.node`;
  return path.join('prebuilds', `${platform}-${arch}`, file);
}

function describe({ platform, arch, libc }) {
  return `${platform}-${arch}${libc ? ` (${libc})` : ''}`;
}

/** The prebuilds a package folder holds, for messages: 'linux-x64 (glibc, musl), …'. */
function shipped(dir) {
  const root = path.join(dir, 'prebuilds');
  let tuples;
  try {
    tuples = fs.readdirSync(root).sort();
  } catch {
    return 'none';
  }
  const named = tuples.map((tuple) => {
    const tags = fs
      .readdirSync(path.join(root, tuple))
      .map((f) => /^snowflake-c\.napi(?:\.(\w+))?\.node$/.exec(f))
      .filter(Boolean)
      .map((m) => m[1])
      .filter(Boolean);
    return tags.length ? `${tuple} (${tags.join(', ')})` : tuple;
  });
  return named.join(', ') || 'none';
}

const FROM_SOURCE =
  'To build it from source, install Python 3 and a C11 and C++17 compiler (node-gyp), ' +
  'then run `npm rebuild snowflake-c` with install scripts allowed ' +
  '(pnpm: list snowflake-c in onlyBuiltDependencies; Bun: in trustedDependencies).';

function loadError(message, cause) {
  const error = new Error(message, cause ? { cause } : undefined);
  error.code = 'SNOWFLAKE_C_NO_ADDON';
  return error;
}

/** The addon file to load from the package folder `dir`, or an error that says what to do. */
function resolve(dir, target = host()) {
  const built = path.join(dir, BUILT);
  if (fs.existsSync(built)) return built;
  const prebuild = path.join(dir, prebuildPath(target));
  if (fs.existsSync(prebuild)) return prebuild;
  throw loadError(
    `snowflake-c: no prebuilt addon for ${describe(target)} and no build from source in ` +
      `${path.join(dir, 'build')}. This package has prebuilds for: ${shipped(dir)}. ${FROM_SOURCE}`,
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

module.exports = { load, resolve, host, prebuildPath };
