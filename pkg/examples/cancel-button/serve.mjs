// Serves the example pages on 127.0.0.1 with their servers on the same origin, so no page needs
// CORS: `node examples/cancel-button/serve.mjs [port]` (from the package folder), then open
// http://127.0.0.1:PORT/examples/cancel-button/?job=NAME (or ?model=NAME), the same button on
// longcall/lite at /examples/lite-button/?job=NAME, or an MCP tool run as a task at
// /examples/mcp-button/?tool=NAME, whose `/mcp` goes to the reference MCP tasks server
// (examples/mcp-tasks-server.mjs), started here. The job API is either
// * a small scripted one speaking the Sume Open API, so every path of the page can be seen: each
//   job NAME plays one script: `queued` (cancel succeeds), `late` (409 too late, then it
//   finishes), `html502` (the cancel gets a 502 HTML page), `html200` (the cancel gets a 200
//   HTML page, as a proxy's sign-in page, and the job goes on), `drop` (the connection drops),
//   `unlisted` (a 409 with a code longcall does not know), `unknown` (two polls answer a status
//   the API does not list, then it finishes), `html404` (the second and third polls get a proxy's
//   404 page, which is not the API saying the job is unknown, then it finishes), `owned` (answers
//   401 unless the request carries `Authorization: Bearer owner`, as `?key=owner` sends it),
//   anything else (finishes after
//   three polls); each NAME plays its script once per run of this server, and NAME-N (`late-2`)
//   plays it again as a job of its own;
//   a submit (`?model=NAME`'s Render button) creates one job per idempotency key, which plays
//   the script its model names (`?model=late`), else the last one (`?model=slow-submit`: the
//   submit is answered after 2 s; `?model=full-once`: the first submit finds the queue full). `GET /_counters` says what it got: the submits per
//   idempotency key and the job each key made, so a host can be seen to send a submit again with
//   its key and make one job. It answers other origins too (CORS), for a page served by a dev
//   server; or
// * a real job server, proxied: `serve.mjs 8080 --api http://127.0.0.1:PORT` (`longcall
//   serve-jobs` prints its URL; submit a job there, then open `?job=ID&key=API_KEY`).
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createTasksServer } from '../mcp-tasks-server.mjs';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm' };

/** The scripts a job can play, by name; any other name finishes after three polls. */
const SCRIPTS = ['queued', 'late', 'html502', 'html200', 'drop', 'unlisted', 'unknown', 'html404', 'owned'];

/** The script job `id` plays: its name, a number after it left off (`late-2` plays `late`). */
const scriptOf = (id) => id.replace(/-\d+$/, '');

/** The answers of job `id`, by what happened to it so far. */
function script(id) {
  const name = scriptOf(id);
  let polls = 0,
    afterPress = 0,
    cancelled = false,
    pressed = false;
  const job = (status) => ({ status: 200, body: { data: { request_id: id, sume_status: status } } });
  const error = (status, code) => ({ status, body: { error: { code, message: code, retryable: false } } });
  return {
    get() {
      polls += 1;
      if (pressed) afterPress += 1;
      if (cancelled) return job('canceled');
      if (name === 'html404' && (polls === 2 || polls === 3))
        return { status: 404, html: '<html><body>404 Not Found</body></html>' };
      if (name === 'late' && pressed) return job(afterPress >= 2 ? 'completed' : 'processing');
      if (['queued', 'late', 'html502', 'html200', 'drop', 'unlisted'].includes(name)) return job('queued');
      if (name === 'unknown' && polls > 1) return job(polls <= 3 ? 'pending' : 'completed');
      return job(polls > 3 ? 'completed' : 'queued');
    },
    result() {
      const artifacts = [{ url: `https://artifacts.invalid/${id}/0.png` }];
      return { status: 200, body: { data: { request_id: id, sume_status: 'completed', result: { artifacts } } } };
    },
    cancel() {
      pressed = true;
      if (name === 'late') return error(409, 'job_generation_already_started');
      if (name === 'html502') return { status: 502, html: '<html><body>Bad gateway</body></html>' };
      if (name === 'html200') return { status: 200, html: '<html><body>Please sign in</body></html>' };
      if (name === 'drop') return { drop: true };
      if (name === 'unlisted') return error(409, 'job_already_finishing');
      cancelled = true;
      return { status: 200, body: { data: { request_id: id, sume_status: 'canceled', refunded: true } } };
    },
  };
}

/** Hands a request to the job server at `api` and its answer back, as they are. */
async function proxy(api, req, res) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
  );
  try {
    const r = await fetch(new URL(req.url, api), {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const keep = [...r.headers].filter(([k]) => !['connection', 'keep-alive', 'transfer-encoding'].includes(k));
    res.writeHead(r.status, Object.fromEntries(keep)).end(Buffer.from(await r.arrayBuffer()));
  } catch {
    req.socket.destroy(); // the job server did not answer: neither does this one
  }
}

/**
 * Starts the server; resolves to `{ base, close }`. With `api` (a job server's base URL), the
 * Open API's requests (`/v1/...`, and `/_counters`) go to it instead of the scripted jobs. `/mcp`
 * goes to a reference MCP tasks server of its own.
 * @param {number} [port]
 * @param {{api?: string}} [options]
 */
export async function serveExample(port = 0, { api } = {}) {
  const tasks = createTasksServer({ pollIntervalMs: 1000 });
  const mcp = await tasks.listen(0);
  const jobs = new Map();
  /** Job id by idempotency key: a submit sent again with its key finds the job it made. */
  const submitted = new Map();
  /** Keys whose first submit was refused (`full-once`). */
  const refused = new Set();
  /** Submits received per idempotency key (`/_counters`). */
  const submits = new Map();
  const server = http.createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (api && /^\/(v1\/|_counters$)/.test(path)) {
      await proxy(api, req, res);
      return;
    }
    if (path === '/mcp') {
      await proxy(mcp, req, res);
      return;
    }
    if (path === '/_counters') {
      const counters = { submitsPerKey: Object.fromEntries(submits), jobPerKey: Object.fromEntries(submitted) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counters));
      return;
    }
    // The scripted API also answers pages served elsewhere (a Vite dev server on its own port).
    if (path.startsWith('/v1/')) {
      res.setHeader('access-control-allow-origin', '*');
      if (req.method === 'OPTIONS') {
        res
          .writeHead(204, {
            'access-control-allow-methods': 'GET, POST',
            'access-control-allow-headers': 'authorization, content-type, idempotency-key',
          })
          .end();
        return;
      }
    }
    if (req.method === 'POST' && /^\/v1\/(image|video)-router\/generate$/.test(path)) {
      let text = '';
      for await (const chunk of req) text += chunk; // the job's arguments play no part in a script
      const { model } = JSON.parse(text || '{}');
      // Model `slow-submit`: the submit is answered after 2 s, time to press cancel meanwhile.
      if (model === 'slow-submit') await new Promise((r) => setTimeout(r, 2000));
      const key = req.headers['idempotency-key'] ?? `unkeyed-${submitted.size}`;
      submits.set(key, (submits.get(key) ?? 0) + 1);
      // Model `full-once`: the first submit of each key finds the queue full (429, Retry-After 1).
      if (model === 'full-once' && !refused.has(key)) {
        refused.add(key);
        const error = { code: 'queue_full', message: 'the queue is full', retryable: true };
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ error }));
        return;
      }
      // A model that names a script (`late`) makes a job that plays it (`late-3`).
      const n = submitted.size + 1;
      if (!submitted.has(key)) submitted.set(key, SCRIPTS.includes(model) ? `${model}-${n}` : `job_${n}`);
      const id = submitted.get(key);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: { request_id: id, sume_status: 'queued' } }));
      return;
    }
    const m = path.match(/^\/v1\/jobs\/([\w-]+)\/(status|result|cancel)$/);
    if (m) {
      if (scriptOf(m[1]) === 'owned' && req.headers.authorization !== 'Bearer owner') {
        const error = { code: 'unauthorized', message: 'send Authorization: Bearer <api key>' };
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
        return;
      }
      if (!jobs.has(m[1])) jobs.set(m[1], script(m[1]));
      const a = jobs.get(m[1])[m[2] === 'status' ? 'get' : m[2]]();
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
    close: async () => {
      await tasks.close();
      await new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(ok);
      });
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--api');
  const api = at > 0 ? process.argv[at + 1] : undefined;
  const { base } = await serveExample(Number(process.argv[2] ?? 8080), { api });
  console.log(
    api
      ? `open ${base}/examples/cancel-button/?job=ID&key=API_KEY (job API: ${api})`
      : `open ${base}/examples/cancel-button/?job=queued (or late, html502, drop, unlisted; or ?model=demo-image to submit)`,
  );
  console.log(`open ${base}/examples/mcp-button/ (or ?tool=confirm_delete&args={"filename":"a.txt"})`);
}
