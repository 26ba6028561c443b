'use strict';

// The release targets of the repository's cross/ (one Meson cross file each,
// cross/<target>.ini: scripts/targets) as Node.js names them: the platform,
// architecture and C library of binding.js's host(), from which binding.js
// names the target's npm package (@snowflake-c/linux-x64-gnu). Used by the
// release scripts (prebuild.js, platform-package.js); not in the tarball.

const fs = require('node:fs');
const path = require('node:path');

const repoDir = path.join(__dirname, '..', '..');

// <arch>-<os>, as Node.js names them (process.arch, process.platform and
// binding.js's libc).
const ARCHES = { x86_64: 'x64', aarch64: 'arm64' };
const SYSTEMS = {
  'linux-gnu': { platform: 'linux', libc: 'glibc' },
  'linux-musl': { platform: 'linux', libc: 'musl' },
  macos: { platform: 'darwin' },
  windows: { platform: 'win32' },
};

/** The targets: the names of cross/*.ini, in byte order. */
function targets() {
  const dir = path.join(repoDir, 'cross');
  const names = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ini'))
    .map((f) => f.slice(0, -'.ini'.length))
    .sort();
  if (names.length === 0) throw new Error(`no cross file in ${dir}`);
  return names;
}

/** A target's Node.js platform, arch and libc; null when it is no target. */
function nodeHost(target) {
  if (!targets().includes(target)) return null;
  const dash = target.indexOf('-');
  const arch = ARCHES[target.slice(0, dash)];
  const system = SYSTEMS[target.slice(dash + 1)];
  if (!arch || !system) {
    throw new Error(
      `cross/${target}.ini names a target that ${path.relative(repoDir, __filename)} cannot ` +
        `name for Node.js: add its architecture or system there`,
    );
  }
  return { ...system, arch };
}

module.exports = { targets, nodeHost, repoDir };
