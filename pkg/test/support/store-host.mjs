// A host process for store.test.mjs (run with Node 22): watches CALLS paid jobs on the job
// server at argv[2], with its records in the SQLite file argv[3]. It may be killed at any moment;
// started again it resumes from the file. Each settled call is reported once into the `reports`
// table (the report's key is the call id), then removed. Exits 0 when every call is reported.
import { DatabaseSync } from 'node:sqlite';
import { openWatchList, pump, sqliteStore } from 'longcall/store';

const [, , base, file, callsArg] = process.argv;
const CALLS = Number(callsArg);
const store = await sqliteStore(file);
const reports = new DatabaseSync(file);
reports.exec('CREATE TABLE IF NOT EXISTS reports (call INTEGER PRIMARY KEY, outcome TEXT NOT NULL)');
const reported = new Set(
  reports
    .prepare('SELECT call FROM reports')
    .all()
    .map((r) => r.call),
);
const report = reports.prepare('INSERT OR IGNORE INTO reports (call, outcome) VALUES (?, ?)');

const config = { poll: { jitter: 'none', initialMs: 100, capMs: 200, minIntervalMs: 100 } };
const list = await openWatchList(store, Date.now());
// Calls whose intent never reached the file start again: the same idempotency key makes any job
// the first attempt created come back, never a second one.
for (let call = 0; call < CALLS; call++) {
  if (reported.has(call)) continue;
  try {
    list.addNew(call, { model: 'job', request: { prompt: `frame ${call}` }, idempotencyKey: `key-${call}` }, config);
  } catch (e) {
    if (e.code !== 'duplicate') throw e; // resumed from its record
  }
}

let inFlight = 0;
let timer = null;
let closing = false;

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

function onOutput(o) {
  if (o.type === 'create') {
    request(o.call, async () => {
      try {
        const r = await http('POST', '/jobs', { idempotency_key: o.intent.idempotencyKey });
        if (r.status === 202 || r.status === 200) return { type: 'job_created', job: r.body };
      } catch {
        /* no answer */
      }
      return { type: 'create_unanswered' };
    });
  } else if (o.type === 'call' && o.output.type === 'send') {
    const req = o.output.request;
    request(o.call, async () => {
      try {
        if (req.kind === 'get') {
          const r = await http('GET', `/jobs/${req.handle}`);
          if (r.status === 200) return { type: 'job_polled', job: r.body };
          return {
            type: 'request_failed',
            request: 'get',
            failure: { kind: 'http', status: r.status, code: r.body?.error?.code ?? null },
          };
        }
      } catch {
        /* transport */
      }
      return { type: 'request_failed', request: req.kind, failure: { kind: 'transport' } };
    });
  } else if (o.type === 'call' && o.output.type === 'settled') {
    report.run(o.call, o.output.outcome);
    reported.add(o.call);
    list.remove(o.call);
  } else if (o.type === 'create_unanswered' || (o.type === 'call' && o.output.type === 'stopped')) {
    report.run(o.call, 'unanswered');
    reported.add(o.call);
    list.remove(o.call);
  }
}

async function run() {
  await pump(list, store, onOutput);
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
