'use strict';
// Where the C core (with its binding kit, core/kit) and the Node-API glue
// are: the copies vendored into the package by `npm pack` (node/core,
// node/src) when present, else the repository's. binding.gyp runs it to
// print them (`glue`, `sources`, or the include folders by default),
// relative to the package with forward slashes; scripts/prebuild.js
// requires it for absolute paths.
const fs = require('fs');
const path = require('path');

const pkgDir = path.join(__dirname, '..');
const vendored = path.join(pkgDir, 'core');
const inRepo = path.join(pkgDir, '..', 'core');
const coreDir = fs.existsSync(path.join(vendored, 'include', 'snowflake_c.h')) ? vendored : inRepo;

/** The C files of the core and of the kit. */
function sources() {
  return ['src', 'kit'].flatMap((dir) => {
    const src = path.join(coreDir, dir);
    const files = fs
      .readdirSync(src)
      .filter((f) => f.endsWith('.c'))
      .sort();
    if (files.length === 0) throw new Error(`snowflake-c: no C sources in ${src}`);
    return files.map((f) => path.join(src, f));
  });
}

/** The Node-API glue. */
function glue() {
  const vendoredGlue = path.join(pkgDir, 'src', 'addon.cc');
  const repoGlue = path.join(pkgDir, '..', 'bindings', 'node', 'addon.cc');
  return fs.existsSync(vendoredGlue) ? vendoredGlue : repoGlue;
}

/** The core's public header's folder and the kit's. */
const include = () => [path.join(coreDir, 'include'), path.join(coreDir, 'kit')];

module.exports = { sources, glue, include };

if (require.main === module) {
  // gyp wants paths relative to binding.gyp, with forward slashes.
  const rel = (p) => path.relative(pkgDir, p).split(path.sep).join('/');
  try {
    const what = process.argv[2];
    const paths = what === 'sources' ? sources() : what === 'glue' ? [glue()] : include();
    console.log(paths.map(rel).join('\n'));
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
