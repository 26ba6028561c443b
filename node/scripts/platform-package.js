'use strict';

// The npm packages of the prebuilt addons, one per release target
// (scripts/targets.js), and the optionalDependencies of the main package that
// name them. Both are written at pack time from the main package's
// package.json, so that its version is the only one (scripts/version checks
// it against the header).
//
//   node scripts/platform-package.js <target> <addon> <main-dir> <out-dir>
//   node scripts/platform-package.js --main <main-dir>
//
// The first writes the package of <target> into <out-dir>: its package.json
// (@snowflake-c/linux-x64-gnu, the main package's version, with os, cpu and,
// on Linux, libc, so that npm installs only the package that fits), the
// addon built by prebuild.js, <main-dir>'s LICENSE and a README. The second
// adds to <main-dir>/package.json an optionalDependency on every target's
// package, at the main package's version. scripts/release-node runs both on
// its copy of the package.

const fs = require('node:fs');
const path = require('node:path');
const { packageName, addonFile } = require('../binding');
const { targets, nodeHost } = require('./targets');

const SYSTEMS = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };

function fail(message) {
  console.error(`platform-package: ${message}`);
  process.exit(1);
}

function readManifest(dir) {
  const file = path.join(dir, 'package.json');
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return fail(`cannot read ${file}: ${error.message}`);
  }
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The package.json of a target's package. */
function platformManifest(main, target) {
  const host = nodeHost(target);
  if (!host) fail(`unknown target '${target}' (one of: ${targets().join(' ')})`);
  const file = addonFile(host);
  const system = SYSTEMS[host.platform] || host.platform;
  const where = `${system} ${host.arch}${host.libc ? ` (${host.libc})` : ''}`;
  return {
    name: packageName(host),
    version: main.version,
    description: `The prebuilt Node-API addon of ${main.name} for ${where}: installed by ${main.name}, not used alone.`,
    license: main.license,
    os: [host.platform],
    cpu: [host.arch],
    ...(host.libc ? { libc: [host.libc] } : {}),
    main: file,
    files: [file, 'LICENSE', 'README.md'],
    engines: main.engines,
  };
}

function writePlatform(target, addon, mainDir, outDir) {
  const main = readManifest(mainDir);
  const manifest = platformManifest(main, target);
  const license = path.join(mainDir, 'LICENSE');
  if (!fs.existsSync(addon)) fail(`no addon at ${addon}`);
  if (!fs.existsSync(license)) fail(`no LICENSE in ${mainDir}`);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  writeJson(path.join(outDir, 'package.json'), manifest);
  fs.copyFileSync(addon, path.join(outDir, manifest.main));
  fs.copyFileSync(license, path.join(outDir, 'LICENSE'));
  const fits = `${manifest.os[0]}-${manifest.cpu[0]}${manifest.libc ? ` with ${manifest.libc[0]}` : ''}`;
  fs.writeFileSync(
    path.join(outDir, 'README.md'),
    `# ${manifest.name}\n\nThe prebuilt Node-API addon of \`${main.name}\` for ${fits}. ` +
      `Install \`${main.name}\`: npm installs this package with it, as an optional ` +
      `dependency, where it fits.\n`,
  );
  console.log(outDir);
}

function stampMain(mainDir) {
  const main = readManifest(mainDir);
  const optional = {};
  for (const target of targets()) optional[platformManifest(main, target).name] = main.version;
  main.optionalDependencies = Object.fromEntries(
    Object.entries(optional).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  writeJson(path.join(mainDir, 'package.json'), main);
}

const args = process.argv.slice(2);
const usage =
  'usage: node scripts/platform-package.js <target> <addon> <main-dir> <out-dir>\n' +
  '       node scripts/platform-package.js --main <main-dir>';
try {
  if (args[0] === '-h' || args[0] === '--help') console.log(usage);
  else if (args[0] === '--main' && args.length === 2) stampMain(args[1]);
  else if (args.length === 4 && !args[0].startsWith('-')) writePlatform(...args);
  else fail(usage);
} catch (error) {
  fail(error.message);
}
