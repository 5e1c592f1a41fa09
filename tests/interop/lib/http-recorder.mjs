// Logging reverse proxy for MCP Streamable HTTP, on 127.0.0.1 (OS-chosen port).
// Forwards every request to the fixture unchanged and records both directions as a transcript
// (see transcript.mjs). JSON responses and SSE (text/event-stream) responses are both recorded,
// SSE event by event while it streams through.
//
//   import { startHttpRecorder } from './lib/http-recorder.mjs';
//   const rec = await startHttpRecorder({ upstream: fixture.url, file: 'results/x.jsonl' });
//   // point the client at rec.url instead of fixture.url
//   await rec.stop();            // closes the proxy and the transcript
//
// c2s lines: http = {method, mcpProtocolVersion?, mcpMethod?, mcpName?, mcpSessionId?}
// s2c lines: http = {status, contentType, sse?: true, stream?: 'GET'}
// Requests without a JSON-RPC body (GET stream, DELETE) and responses without one (202) are
// recorded as lines with "msg": null.
import http from 'node:http';
import { Transcript } from './transcript.mjs';

const MAX_BODY = 8 * 1024 * 1024;

function reqHttpInfo(req) {
  const h = req.headers;
  const info = { method: req.method };
  if (h['mcp-protocol-version'] !== undefined) info.mcpProtocolVersion = h['mcp-protocol-version'];
  if (h['mcp-method'] !== undefined) info.mcpMethod = h['mcp-method'];
  if (h['mcp-name'] !== undefined) info.mcpName = h['mcp-name'];
  if (h['mcp-session-id'] !== undefined) info.mcpSessionId = h['mcp-session-id'];
  return info;
}

function splitMessages(parsed) {
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** Incremental SSE parser: feed(text) calls onEvent(data) for every complete event's data. */
function sseParser(onEvent) {
  let buf = '';
  return (text) => {
    buf += text.replace(/\r\n/g, '\n');
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) onEvent(data);
    }
  };
}

export function startHttpRecorder({ upstream, file, transcript }) {
  const up = new URL(upstream);
  const t = transcript ?? new Transcript(file);
  const sockets = new Set();
  const upstreamReqs = new Set();

  const server = http.createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const cinfo = reqHttpInfo(req);
      let parsed = null;
      if (body.length) {
        try {
          parsed = JSON.parse(body.toString('utf8'));
        } catch {
          parsed = undefined;
        }
      }
      if (parsed) for (const m of splitMessages(parsed)) t.write('c2s', m, cinfo);
      else
        t.write('c2s', null, {
          ...cinfo,
          ...(parsed === undefined ? { unparsedBody: body.toString('utf8').slice(0, 2000) } : {}),
        });

      const headers = { ...req.headers, host: up.host };
      delete headers['content-length'];
      if (body.length) headers['content-length'] = String(body.length);
      const target = new URL(req.url, up);
      const preq = http.request(
        { hostname: up.hostname, port: up.port, path: target.pathname + target.search, method: req.method, headers },
        (pres) => {
          const ct = pres.headers['content-type'] ?? '';
          const sinfo = { status: pres.statusCode, contentType: ct.split(';')[0] };
          res.writeHead(pres.statusCode, pres.headers);
          if (ct.startsWith('text/event-stream')) {
            let count = 0;
            const feed = sseParser((data) => {
              count++;
              let m;
              try {
                m = JSON.parse(data);
              } catch {
                return t.write('s2c', null, { ...sinfo, sse: true, unparsedData: data.slice(0, 2000) });
              }
              for (const x of splitMessages(m))
                t.write('s2c', x, { ...sinfo, sse: true, ...(req.method === 'GET' ? { stream: 'GET' } : {}) });
            });
            pres.setEncoding('utf8');
            pres.on('data', (d) => {
              feed(d);
              res.write(d);
            });
            pres.on('end', () => {
              if (count === 0) t.write('s2c', null, { ...sinfo, sse: true, note: 'stream ended without events' });
              res.end();
            });
          } else {
            const out = [];
            pres.on('data', (d) => out.push(d));
            pres.on('end', () => {
              const b = Buffer.concat(out);
              let m = null;
              if (b.length) {
                try {
                  m = JSON.parse(b.toString('utf8'));
                } catch {
                  m = undefined;
                }
              }
              if (m) for (const x of splitMessages(m)) t.write('s2c', x, sinfo);
              else
                t.write('s2c', null, {
                  ...sinfo,
                  ...(m === undefined ? { unparsedBody: b.toString('utf8').slice(0, 2000) } : {}),
                });
              res.end(b);
            });
          }
          pres.on('error', () => res.destroy());
        },
      );
      upstreamReqs.add(preq);
      preq.on('close', () => upstreamReqs.delete(preq));
      preq.on('error', (e) => {
        t.write('s2c', null, { status: 502, contentType: 'text/plain', proxyError: String(e?.message ?? e) });
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy error: ${e?.message ?? e}`);
      });
      res.on('close', () => {
        if (!preq.destroyed) preq.destroy();
      });
      preq.end(body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      const url = `http://127.0.0.1:${port}${up.pathname}`;
      resolve({
        url,
        transcript: t,
        async stop() {
          for (const r of upstreamReqs) r.destroy();
          for (const s of sockets) s.destroy();
          await new Promise((r) => server.close(() => r()));
          t.close();
        },
      });
    });
  });
}
