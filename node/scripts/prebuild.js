'use strict';

// Cross-compiles the addon for one of the targets of the repository's
// cross/ (one Meson cross file each, cross/<target>.ini) with zig (PyPI
// ziglang, the compiler of those files), with no Node.js of the target:
// Node-API's headers come from node-api-headers.
//
//   node scripts/prebuild.js <target> <build-dir> <out-dir>
//   node scripts/prebuild.js --path <target>
//
// The first writes <out-dir>/<platform>-<arch>[-<abi>]/snowflake-c.<same>.node,
// the folder and file of the target's npm package as binding.js names them
// (@snowflake-c/linux-x64-gnu: scripts/platform-package.js makes the
// package), and prints its path. The napi_* symbols are left for
// the loading process: undefined on Linux, `-undefined dynamic_lookup` on
// macOS, and on Windows an import library for node.exe made from
// node-api-headers' .def file. zig links its own libc++ statically, so a
// prebuild needs no C++ runtime of the machine. The second prints that
// path, relative to <out-dir>, without building.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const core = require('./core-dir');
const { packageName, addonFile } = require('../binding');
const targetsModule = require('./targets');

const { repoDir } = targetsModule;

function nodeHost(target) {
  try {
    return targetsModule.nodeHost(target);
  } catch (error) {
    return fail(error.message);
  }
}

function targets() {
  try {
    return targetsModule.targets();
  } catch (error) {
    return fail(error.message);
  }
}

/** The addon's path under the output folder: <package folder>/<file>. */
function addonPath(host) {
  return path.join(packageName(host).split('/')[1], addonFile(host));
}

const WARNINGS = ['-Wall', '-Wextra', '-Werror'];
// What Node.js looks up in an addon (NAPI_MODULE_INIT and its version).
const EXPORTS = ['napi_register_module_v1', 'node_api_module_get_api_version_v1'];

function fail(message) {
  console.error(`prebuild: ${message}`);
  process.exit(1);
}

/** zig's -target of a cross file (with its glibc or macOS floor). */
function zigTarget(target) {
  const ini = path.join(repoDir, 'cross', `${target}.ini`);
  const text = fs.readFileSync(ini, 'utf8');
  const m = /^target\s*=\s*\[\s*'-target'\s*,\s*'([^']+)'\s*\]/m.exec(text);
  if (!m) fail(`${ini} has no "target = ['-target', '…']" line`);
  return m[1];
}

function run(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-m', 'ziglang', ...args], { cwd, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`zig ${args.slice(0, 3).join(' ')} … failed (${signal || code})`)),
    );
  });
}

/** Runs the commands, `jobs` at a time; rejects on the first failure. */
async function pool(commands, jobs, cwd) {
  const queue = [...commands];
  const worker = async () => {
    while (queue.length) await run(queue.shift(), cwd);
  };
  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, worker));
}

async function main() {
  const args = process.argv.slice(2);
  const usage =
    'usage: node scripts/prebuild.js <target> <build-dir> <out-dir>\n' +
    '       node scripts/prebuild.js --path <target>\n' +
    `targets (cross/*.ini): ${targets().join(' ')}`;
  if (args[0] === '-h' || args[0] === '--help') {
    console.log(usage);
    return;
  }
  if (args[0] === '--path' && args.length === 2) {
    const host = nodeHost(args[1]);
    if (!host) fail(`unknown target '${args[1]}'\n${usage}`);
    console.log(addonPath(host).split(path.sep).join('/'));
    return;
  }
  const [target, buildArg, outArg] = args;
  const host = nodeHost(target);
  if (!host || !buildArg || !outArg || args.length !== 3) fail(usage);
  const buildDir = path.resolve(buildArg);
  const zt = ['-target', zigTarget(target)];
  const windows = host.platform === 'win32';
  const headers = require('node-api-headers');
  const addonApi = path.dirname(require.resolve('node-addon-api/package.json'));

  fs.rmSync(buildDir, { recursive: true, force: true });
  fs.mkdirSync(buildDir, { recursive: true });
  const common = [...zt, '-O2', '-g0', '-fvisibility=hidden', ...WARNINGS];
  if (!windows) common.push('-fPIC', '-pthread');
  const include = core.include().flatMap((dir) => ['-I', dir]);

  const objects = [];
  const compile = core.sources().map((src) => {
    const obj = `${path.basename(src, '.c')}.o`;
    objects.push(obj);
    return ['cc', ...common, '-std=c11', ...include, '-c', src, '-o', obj];
  });
  objects.push('addon.o');
  compile.unshift([
    'c++',
    ...common,
    '-std=c++17',
    '-fexceptions',
    '-DNAPI_VERSION=8',
    '-DNAPI_CPP_EXCEPTIONS',
    '-DNODE_ADDON_API_DISABLE_DEPRECATED',
    '-isystem',
    headers.include_dir,
    '-isystem',
    addonApi,
    ...include,
    '-c',
    core.glue(),
    '-o',
    'addon.o',
  ]);
  const jobs = Number(process.env.JOBS) || Math.max(1, os.availableParallelism?.() ?? 2);
  await pool(compile, jobs, buildDir);

  // Only Node-API's entry points are exported: the core and the static
  // libc++ stay private (Node.js has its own C++ runtime).
  const link = ['c++', ...zt, '-shared', '-s', '-o', 'snowflake_c.node', ...objects];
  if (host.platform === 'linux') {
    fs.writeFileSync(
      path.join(buildDir, 'exports.map'),
      `{\n  global: ${EXPORTS.join('; ')};\n  local: *;\n};\n`,
    );
    link.push('-pthread', '-Wl,-z,noexecstack', '-Wl,--version-script=exports.map');
  } else if (host.platform === 'darwin') {
    // zig's Mach-O linker takes no export list; two-level namespaces keep
    // the addon's symbols apart from Node.js's anyway.
    link.push('-pthread', '-Wl,-undefined,dynamic_lookup');
  } else {
    await run(
      ['dlltool', '-m', 'i386:x86-64', '-d', headers.def_paths.node_api_def, '-l', 'node.lib'],
      buildDir,
    );
    link.push('node.lib', '-lbcrypt', '-ladvapi32');
  }
  await run(link, buildDir);

  const dest = path.join(path.resolve(outArg), addonPath(host));
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.copyFileSync(path.join(buildDir, 'snowflake_c.node'), dest);
  console.log(dest);
}

main().catch((error) => fail(error.message));
