'use strict';
// Prints, for binding.gyp, where the C core is: the copy vendored into the
// package by `npm pack` (node/core) when present, else the repository's core/.
// With `sources`, prints the core's C files instead, one per line.
const fs = require('fs');
const path = require('path');

const pkgDir = path.join(__dirname, '..');
const vendored = path.join(pkgDir, 'core');
const inRepo = path.join(pkgDir, '..', 'core');
const coreDir = fs.existsSync(path.join(vendored, 'include', 'snowflake_c.h')) ? vendored : inRepo;

// gyp wants paths relative to binding.gyp, with forward slashes.
const rel = (p) => path.relative(pkgDir, p).split(path.sep).join('/');

if (process.argv[2] === 'sources') {
  const src = path.join(coreDir, 'src');
  const files = fs
    .readdirSync(src)
    .filter((f) => f.endsWith('.c'))
    .sort();
  if (files.length === 0) {
    console.error(`snowflake-c: no C sources in ${src}`);
    process.exit(1);
  }
  console.log(files.map((f) => rel(path.join(src, f))).join('\n'));
} else if (process.argv[2] === 'glue') {
  const vendoredGlue = path.join(pkgDir, 'src', 'addon.cc');
  const repoGlue = path.join(pkgDir, '..', 'bindings', 'node', 'addon.cc');
  console.log(rel(fs.existsSync(vendoredGlue) ? vendoredGlue : repoGlue));
} else {
  console.log(rel(path.join(coreDir, 'include')));
}
