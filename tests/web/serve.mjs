// A static HTTP server on 127.0.0.1 for the browser tests: URL prefixes
// mapped to folders of the repository, with the MIME types a browser checks
// (application/wasm for streaming compilation, text/javascript for modules).
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
};

/**
 * Serves `mounts` ({ '/prefix/': folder }, longest prefix first) and
 * `generated` ({ '/path': [type, text] }); resolves to { origin, close }.
 */
export function serve(mounts, generated = {}) {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://x').pathname);
    if (path in generated) {
      const [type, body] = generated[path];
      response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
      return;
    }
    const prefix = prefixes.find((p) => path.startsWith(p));
    let file = prefix && normalize(join(mounts[prefix], path.slice(prefix.length)));
    if (file && !file.startsWith(normalize(mounts[prefix]))) file = undefined;
    try {
      if (file && statSync(file).isDirectory()) file = join(file, 'index.html');
      if (!file || !statSync(file).isFile()) throw new Error('not a file');
    } catch {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.close(done);
            server.closeAllConnections();
          }),
      });
    });
  });
}
