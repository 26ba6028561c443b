'use strict';
// `npm pack` cannot reach outside the package folder, so prepack copies the
// C core (../core/include, ../core/src, ../core/kit) to core/ and the Node-API glue
// (../bindings/node/addon.cc) to src/; binding.gyp builds the copies when
// present. `--clean` (postpack) removes them again. SNOWFLAKE_C_REPO names
// the repository when the package is packed from a copy elsewhere
// (scripts/release-node).
const fs = require('fs');
const path = require('path');

const pkgDir = path.join(__dirname, '..');
const repoDir = path.resolve(process.env.SNOWFLAKE_C_REPO || path.join(pkgDir, '..'));
const targets = [
  [path.join(repoDir, 'core', 'include'), path.join(pkgDir, 'core', 'include')],
  [path.join(repoDir, 'core', 'src'), path.join(pkgDir, 'core', 'src')],
  [path.join(repoDir, 'core', 'kit'), path.join(pkgDir, 'core', 'kit')],
  [path.join(repoDir, 'bindings', 'node', 'addon.cc'), path.join(pkgDir, 'src', 'addon.cc')],
  [path.join(repoDir, 'LICENSE'), path.join(pkgDir, 'LICENSE')],
];

fs.rmSync(path.join(pkgDir, 'core'), { recursive: true, force: true });
fs.rmSync(path.join(pkgDir, 'src'), { recursive: true, force: true });
fs.rmSync(path.join(pkgDir, 'LICENSE'), { force: true });
if (process.argv[2] !== '--clean') {
  for (const [from, to] of targets) {
    if (!fs.existsSync(from)) {
      console.error(`snowflake-c: ${from} is missing; pack from a full checkout.`);
      process.exit(1);
    }
    fs.cpSync(from, to, {
      recursive: true,
      filter: (p) => fs.statSync(p).isDirectory() || /(\.(c|h|cc)|LICENSE)$/.test(p),
    });
  }
}
