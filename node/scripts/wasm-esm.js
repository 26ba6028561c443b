'use strict';

// Writes the ES module twins of the files that the WebAssembly entries for
// browsers, Deno and workers share with the Node.js entries (api.js,
// error-kinds.js, wasm/binding.js) into wasm/esm/*.mjs, where no CommonJS
// loader exists. Those files require nothing and end with one
// `module.exports = name;`, which becomes `export default name;`: anything
// else is an error here, not a silent half-translation. Run by
// bindings/wasm/build.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const SOURCES = ['api.js', 'error-kinds.js', path.join('wasm', 'binding.js')];
const OUT = path.join(ROOT, 'wasm', 'esm');

fs.mkdirSync(OUT, { recursive: true });
for (const source of SOURCES) {
  const text = fs.readFileSync(path.join(ROOT, source), 'utf8');
  const exports = text.match(/^module\.exports = ([A-Za-z_$][\w$]*);\n/gm) || [];
  if (exports.length !== 1 || /\brequire\(/.test(text) || !text.startsWith("'use strict';\n")) {
    throw new Error(
      `${source}: not a file this script can translate (no require, one module.exports = name;)`,
    );
  }
  const name = path.basename(source, '.js');
  const esm =
    `// Generated from ${source.split(path.sep).join('/')} by scripts/wasm-esm.js: edit that file.\n` +
    text
      .slice("'use strict';\n".length)
      .replace(/^module\.exports = ([A-Za-z_$][\w$]*);\n/m, 'export default $1;\n');
  fs.writeFileSync(path.join(OUT, `${name}.mjs`), esm);
}
