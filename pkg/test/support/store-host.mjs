// A host process for store.test.mjs (run with Node 22): watches CALLS calls, with its records in
// the SQLite file argv[3]: paid jobs on the job server at argv[2], and MCP tasks of both
// revisions, some asking the user for input, on the tasks server at argv[5] (which call is what:
// fleet-calls.mjs). A scripted user presses cancel on calls ending in 3 or 6 as soon as the
// button offers it, and answers every prompt. It may be killed at any moment; started again it
// resumes from the file. In the same file, outside the store: each settled call is reported
// once into `reports` (the report's key is the call id), then removed; every prompt shown is
// logged into `asks` before it is answered, every press into `presses` once its record is
// written. Exits 0 when every call is reported.
import { DatabaseSync } from 'node:sqlite';
import { openWatchList, pump, sqliteStore } from 'longcall/store';
import { kindOf } from './fleet-calls.mjs';
import { mcpCreate, mcpSend } from './mcp-client.mjs';

const [, , base, file, callsArg, mcpUrl] = process.argv;
const CALLS = Number(callsArg);
const store = await sqliteStore(file);
const db = new DatabaseSync(file);
db.exec(`CREATE TABLE IF NOT EXISTS reports (call INTEGER PRIMARY KEY, outcome TEXT NOT NULL, handle TEXT);
  CREATE TABLE IF NOT EXISTS asks (call INTEGER NOT NULL, key TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS presses (call INTEGER PRIMARY KEY)`);
const reported = new Set(
  db
    .prepare('SELECT call FROM reports')
    .all()
    .map((r) => r.call),
);
const report = db.prepare('INSERT OR IGNORE INTO reports (call, outcome, handle) VALUES (?, ?, ?)');
const logAsk = db.prepare('INSERT INTO asks (call, key) VALUES (?, ?)');
const logPress = db.prepare('INSERT OR IGNORE INTO presses (call) VALUES (?)');

const config = { poll: { jitter: 'none', initialMs: 100, capMs: 200, minIntervalMs: 100 } };
const modelOf = (call) => kindOf(call).model;
const list = await openWatchList(store, Date.now());
// Calls whose intent never reached the file start again: the same idempotency key makes any job
// the first attempt created come back, never a second one. An MCP call is never created twice:
// one whose intent is in the file resumes as `create_unanswered` if its answer was not.
for (let call = 0; call < CALLS; call++) {
  if (reported.has(call)) continue;
  const kind = kindOf(call);
  const intent =
    kind.model === 'job' ? { model: 'job', request: { prompt: `frame ${call}` }, idempotencyKey: `key-${call}` } : kind;
  try {
    list.addNew(call, intent, config);
  } catch (e) {
    if (e.code !== 'duplicate') throw e; // resumed from its record
  }
}

let inFlight = 0;
let timer = null;
let closing = false;
const pressed = new Set();
let presses = [];

async function http(method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

function feed(call, input) {
  try {
    list.handle(Date.now(), call, input);
  } catch (e) {
    if (e.code !== 'invalid_input') throw e; // a late answer for a call removed meanwhile
  }
  run();
}

function request(call, send) {
  inFlight++;
  // `send` never rejects: a request without a usable answer becomes a failure input.
  send().then((input) => {
    inFlight--;
    feed(call, input);
  });
}

const answer = (call, key) =>
  setImmediate(() =>
    feed(call, { type: 'input_answered', key, response: { action: 'accept', content: { confirm: true } } }),
  );

// Prompts a killed run showed and the user had not answered are shown again as state: not
// asked again, so not logged as asked.
for (const row of await store.load()) for (const [key] of list.openPrompts(row.call)) answer(row.call, key);

function press(call) {
  if ((call % 10 !== 3 && call % 10 !== 6) || pressed.has(call)) return;
  pressed.add(call);
  setImmediate(() => {
    if (list.record(call)?.cancel !== 'available') return; // resumed with a press, or ended
    try {
      list.handle(Date.now(), call, { type: 'cancel_pressed' });
      presses.push(call);
    } catch {
      /* the core refused the press: the button said why */
    }
    run();
  });
}

function settle(call, outcome) {
  report.run(call, outcome, list.record(call)?.handle ?? null);
  reported.add(call);
  list.remove(call);
}

function onOutput(o) {
  const mcpCall = modelOf(o.call) !== 'job';
  if (o.type === 'create' && mcpCall) {
    request(o.call, () => mcpCreate(mcpUrl, o.intent));
  } else if (o.type === 'create') {
    request(o.call, async () => {
      try {
        const r = await http('POST', '/jobs', { idempotency_key: o.intent.idempotencyKey });
        if (r.status === 202 || r.status === 200) return { type: 'job_created', job: r.body };
      } catch {
        /* no answer */
      }
      return { type: 'create_unanswered' };
    });
  } else if (o.type === 'call' && o.output.type === 'send' && mcpCall) {
    const req = o.output.request;
    request(o.call, () => mcpSend(mcpUrl, modelOf(o.call), req));
  } else if (o.type === 'call' && o.output.type === 'send') {
    const req = o.output.request;
    request(o.call, async () => {
      try {
        if (req.kind === 'get') {
          const r = await http('GET', `/jobs/${req.handle}`);
          if (r.status === 200) return { type: 'job_polled', job: r.body };
          const failure = { kind: 'http', status: r.status, code: r.body?.error?.code ?? null };
          return { type: 'request_failed', request: 'get', failure };
        }
        if (req.kind === 'cancel') {
          const r = await http('POST', `/jobs/${req.handle}/cancel`, { idempotency_key: req.idempotencyKey });
          if (r.status === 200) return { type: 'cancel_answered', answer: { kind: 'job', status: r.body.status } };
          const code = r.body?.error?.code === 'job_generation_already_started' ? r.body.error.code : 'other';
          return {
            type: 'cancel_answered',
            answer: { kind: 'job_error', httpStatus: r.status, code, cancelable: null },
          };
        }
      } catch {
        /* transport */
      }
      return { type: 'request_failed', request: req.kind, failure: { kind: 'transport' } };
    });
  } else if (o.type === 'call' && o.output.type === 'button' && o.output.state === 'available') {
    press(o.call);
  } else if (o.type === 'call' && o.output.type === 'ask_user') {
    logAsk.run(o.call, o.output.key);
    answer(o.call, o.output.key);
  } else if (o.type === 'call' && o.output.type === 'settled') {
    settle(o.call, o.output.outcome);
  } else if (o.type === 'create_unanswered' || (o.type === 'call' && o.output.type === 'stopped')) {
    settle(o.call, o.type === 'create_unanswered' ? 'create_unanswered' : 'stopped');
  }
}

async function run() {
  const written = presses;
  presses = [];
  await pump(list, store, onOutput);
  // The pump wrote the records holding these presses: from now on they are the user's.
  for (const call of written) logPress.run(call);
  if (timer) clearTimeout(timer);
  timer = null;
  if (list.size === 0 && inFlight === 0) {
    // Two runs may join one pump; only the first closes.
    if (closing) return;
    closing = true;
    await store.close();
    process.exit(0);
  }
  const at = list.pollTimeout;
  if (at !== undefined) {
    timer = setTimeout(
      () => {
        list.timeout(Math.max(at, Date.now()));
        run();
      },
      Math.max(0, at - Date.now()),
    );
  }
}

run();
