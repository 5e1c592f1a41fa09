#!/usr/bin/env node
// A tiny static server for the cancel-button page, on 127.0.0.1 (port 0 unless --port N).
// Serves the package directory (so the page loads the package's browser entry `web.js` and its
// .wasm), and hosts the reference MCP tasks server at /mcp in the same process (same origin:
// no CORS). Prints `LISTENING <page url>`; SIGTERM/SIGINT exit 0; --max-lifetime-ms bounds it.
//
//   npm --prefix pkg run build && node pkg/examples/cancel-page/serve.mjs
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createTasksServer } from '../mcp-tasks-server.mjs';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.css': 'text/css',
  '.png': 'image/png',
};

/** Starts the page server; resolves to `{ url, mcpUrl, close }`. */
export async function servePage({ port = 0, log = () => {} } = {}) {
  const mcp = createTasksServer({ log });
  const server = http.createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/mcp') {
      mcp.handle(req, res).catch(() => res.headersSent || res.writeHead(500).end());
      return;
    }
    if (path === '/') {
      res.writeHead(302, { location: '/examples/cancel-page/' }).end();
      return;
    }
    const file = join(PKG, normalize(path.endsWith('/') ? `${path}index.html` : path));
    // Only the package directory, and never its node_modules.
    if (!file.startsWith(PKG + sep) || file.includes(`${sep}node_modules${sep}`)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res
        .writeHead(200, {
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'cache-control': 'no-store',
        })
        .end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    url: `${base}/examples/cancel-page/`,
    mcpUrl: `${base}/mcp`,
    close: async () => {
      await mcp.close();
      await new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(ok);
      });
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  const page = await servePage({ port: arg('--port', 0), log: (m) => process.stderr.write(`[cancel-page] ${m}\n`) });
  process.stdout.write(`LISTENING ${page.url}\n`);
  const stop = async () => {
    await page.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  setTimeout(stop, arg('--max-lifetime-ms', 3_600_000)).unref();
}
