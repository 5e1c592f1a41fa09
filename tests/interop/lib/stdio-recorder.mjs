// Stdio recording for the 2025 stdio fixture (newline-delimited JSON-RPC).
//
// 1) Library: a recording JSON-RPC channel over a spawned stdio server.
//      import { startFixture, sdk2025Stdio } from './fixture.mjs';
//      import { StdioChannel } from './stdio-recorder.mjs';
//      const f = await startFixture(sdk2025Stdio());
//      const ch = new StdioChannel(f.child, { file: 'results/x.jsonl' });
//      ch.onRequest = async (msg) => ({ action: 'accept', content: { confirm: true } }); // server->client requests
//      const r = await ch.request('initialize', {...});       // resolves {result} or {error}; bounded by timeoutMs
//      ch.notify('notifications/initialized');
//      ch.close(); await f.stop();
//
// 2) CLI tee: put the recorder between any stdio MCP client and the server command.
//      node lib/stdio-recorder.mjs --out results/x.jsonl -- node fixtures/sdk2025-server.mjs --stdio
//    Everything the client writes to our stdin goes to the child (recorded c2s), everything the child
//    writes to stdout comes back (recorded s2c). Child stderr is passed through to our stderr.
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Transcript } from './transcript.mjs';

export class StdioChannel {
  constructor(child, { file, transcript, timeoutMs = 30000 } = {}) {
    this.child = child;
    this.t = transcript ?? new Transcript(file);
    this.timeoutMs = timeoutMs;
    this.nextId = 0;
    this.pending = new Map();
    this.notifications = [];
    this.onRequest = null; // async (msg) => result   (server -> client requests, e.g. elicitation/create)
    this.onNotification = null;
    this.rl = readline.createInterface({ input: child.stdout });
    this.rl.on('line', (line) => this._onLine(line));
  }
  _onLine(line) {
    if (!line.trim()) return;
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      this.t.write('s2c', null, { unparsedLine: line.slice(0, 2000) });
      return;
    }
    this.t.write('s2c', m);
    if (m.method && m.id !== undefined) {
      // server -> client request
      Promise.resolve(this.onRequest ? this.onRequest(m) : Promise.reject(new Error('no handler')))
        .then((result) => this._send({ jsonrpc: '2.0', id: m.id, result }))
        .catch((e) =>
          this._send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: String(e?.message ?? e) } }),
        );
    } else if (m.method) {
      this.notifications.push(m);
      this.onNotification?.(m);
    } else if (m.id !== undefined && this.pending.has(m.id)) {
      const { resolve, timer } = this.pending.get(m.id);
      clearTimeout(timer);
      this.pending.delete(m.id);
      resolve(m);
    }
  }
  _send(msg) {
    this.t.write('c2s', msg);
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }
  /** Send a request; resolves with the whole response message ({result} or {error}). */
  request(method, params, { timeoutMs = this.timeoutMs } = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} (id ${id}) timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
      this._send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    });
  }
  notify(method, params) {
    this._send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }
  close() {
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    this.rl.close();
    this.t.close();
  }
}

// ---- CLI tee ---------------------------------------------------------------------------------
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const sep = argv.indexOf('--');
  const oi = argv.indexOf('--out');
  if (sep < 0 || oi < 0 || oi > sep || sep === argv.length - 1) {
    process.stderr.write('usage: stdio-recorder.mjs --out FILE.jsonl -- CMD [ARGS...]\n');
    process.exit(2);
  }
  const t = new Transcript(argv[oi + 1]);
  const [cmd, ...args] = argv.slice(sep + 1);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const rec = (dir) => (line) => {
    if (!line.trim()) return;
    let m = null;
    try {
      m = JSON.parse(line);
    } catch {
      /* record as null */
    }
    t.write(dir, m, m === null ? { unparsedLine: line.slice(0, 2000) } : undefined);
  };
  const fromClient = readline.createInterface({ input: process.stdin });
  fromClient.on('line', (l) => {
    rec('c2s')(l);
    child.stdin.write(`${l}\n`);
  });
  fromClient.on('close', () => child.stdin.end());
  const fromServer = readline.createInterface({ input: child.stdout });
  fromServer.on('line', (l) => {
    rec('s2c')(l);
    process.stdout.write(`${l}\n`);
  });
  const forward = (sig) => () => {
    try {
      process.kill(child.pid, sig);
    } catch {
      /* gone */
    }
  };
  process.on('SIGTERM', forward('SIGTERM'));
  process.on('SIGINT', forward('SIGINT'));
  child.on('exit', (code, signal) => {
    t.close();
    process.exit(code ?? (signal ? 0 : 1));
  });
}
