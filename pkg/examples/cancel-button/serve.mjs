// Serves the cancel-button example with a small Sume-style job API on 127.0.0.1, so every path
// of the page can be seen: `node examples/cancel-button/serve.mjs [port]` (from the package
// folder), then open http://127.0.0.1:PORT/examples/cancel-button/?job=NAME. Each job NAME
// plays one script: `queued` (cancel succeeds), `late` (409 too late, then it finishes),
// `html502` (the cancel gets a 502 HTML page), `drop` (the connection drops), `unlisted` (a 409
// with a code longcall does not know), anything else (finishes after three polls).
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm' };

/** The answers of one job, by what happened to it so far. */
function script(name) {
  let polls = 0,
    afterPress = 0,
    cancelled = false,
    pressed = false;
  const job = (status) => ({ status: 200, body: { id: name, status } });
  return {
    get() {
      polls += 1;
      if (pressed) afterPress += 1;
      if (cancelled) return job('canceled');
      if (name === 'late' && pressed) return job(afterPress >= 2 ? 'completed' : 'processing');
      if (['queued', 'late', 'html502', 'drop', 'unlisted'].includes(name)) return job('queued');
      return job(polls > 3 ? 'completed' : 'queued');
    },
    cancel() {
      pressed = true;
      if (name === 'late')
        return {
          status: 409,
          body: { error: { code: 'job_generation_already_started', details: { cancelable: false } } },
        };
      if (name === 'html502') return { status: 502, html: '<html><body>Bad gateway</body></html>' };
      if (name === 'drop') return { drop: true };
      if (name === 'unlisted') return { status: 409, body: { error: { code: 'job_already_finishing' } } };
      cancelled = true;
      return { status: 200, body: { id: name, status: 'canceled' } };
    },
  };
}

/** Starts the server; resolves to `{ base, close }`. */
export async function serveExample(port = 0) {
  const jobs = new Map();
  const server = http.createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const m = path.match(/^\/v1\/jobs\/([\w-]+)(\/cancel)?$/);
    if (m) {
      if (!jobs.has(m[1])) jobs.set(m[1], script(m[1]));
      const a = m[2] ? jobs.get(m[1]).cancel() : jobs.get(m[1]).get();
      if (a.drop) {
        req.socket.destroy();
        return;
      }
      if (a.html) {
        res.writeHead(a.status, { 'content-type': 'text/html' }).end(a.html);
        return;
      }
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
      return;
    }
    const file = join(PKG, normalize(path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(PKG + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(ok);
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { base } = await serveExample(Number(process.argv[2] ?? 8080));
  console.log(`open ${base}/examples/cancel-button/?job=queued (or late, html502, drop, unlisted)`);
}
