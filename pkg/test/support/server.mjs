// A tiny static HTTP server on 127.0.0.1 (port 0) for the browser tests.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.jsonl': 'text/plain',
  '.txt': 'text/plain',
  '.md': 'text/plain',
  '.css': 'text/css',
};

/**
 * Serves `root`; `routes` maps exact paths (e.g. '/__runner.html') to `{ type, body }`; `headers`
 * are added to every answer (a Content-Security-Policy, say). Resolves to `{ base, close }`.
 */
export async function serve(root, routes = {}, headers = {}) {
  const server = http.createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const route = routes[path];
    if (route) {
      res.writeHead(200, { ...headers, 'content-type': route.type ?? 'text/html; charset=utf-8' }).end(route.body);
      return;
    }
    const file = join(root, normalize(path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res
        .writeHead(200, {
          ...headers,
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'cache-control': 'no-store',
        })
        .end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(ok);
      }),
  };
}
