// A fleet host for fleet.test.mjs (Node 22): watches paid jobs on `longcall serve-jobs` and MCP
// tasks of both revisions on the reference tasks server, with its run records in one PostgreSQL
// table shared with the other hosts, under a lease. It may be killed at any moment. Each settled
// call is reported once into `fleet_reports` (keyed by the call id, so a report made again after
// a takeover is a no-op), then removed. Every submit is logged to `fleet_submits` before it is
// sent, every prompt shown to the user to `fleet_asks`. Exits 0 once every call is reported.
//
// Which call is what (`kindOf`): a quarter each of 2026 tasks that run 3 s, 2026 tasks that
// ask the user to confirm first (an input request), 2025 tasks that run 3 s, and jobs. The
// scripted user presses cancel on calls ending in 3 or 6 as soon as the button offers it.
//
// argv: base pgUrl owner calls first last leaseMs mcpUrl
//   calls: how many calls the run has; [first, last): the calls this host adds if no record of
//   them exists (the application's queue: work nobody recorded yet).
import pg from 'pg';
import { claimInto, pgStore, pump, WatchList } from 'longcall/store';
import { kindOf } from './fleet-calls.mjs';
import { mcpCreate, mcpSend } from './mcp-client.mjs';

const [, , base, url, owner, callsArg, firstArg, lastArg, leaseArg, mcpUrl] = process.argv;
const CALLS = Number(callsArg);
const leaseMs = Number(leaseArg);
const lease = { owner, leaseMs };
const store = await pgStore({ connectionString: url, table: 'fleet_watches' });
const db = new pg.Pool({ connectionString: url, max: 2 });
db.on('error', () => {});
// fleet_reports and fleet_submits are made by the test before any host starts.

const config = { poll: { jitter: 'none', initialMs: 150, capMs: 300, minIntervalMs: 100 } };
// Empty at first: the loop claims (and logs what it claims) from its first turn.
const list = new WatchList(null);
const known = new Set((await store.list()).map((r) => r.call));
const reported = new Set((await db.query('SELECT call FROM fleet_reports')).rows.map((r) => Number(r.call)));
for (let call = Number(firstArg); call < Number(lastArg); call++) {
  if (known.has(call) || reported.has(call)) continue;
  list.addNew(call, kindOf(call), config);
}

const CANCEL_CODES = ['job_generation_already_started', 'job_not_cancelable', 'not_found', 'rate_limit_exceeded'];
const pressed = new Set(); // calls this host pressed cancel on (or found pressed in their record)
const presses = []; // presses to log once the record holding them is written
const keyOf = (call) => `k${call % 100}`; // at most 10 jobs per key in a 1,000-call run: the credits hold
const modelOf = (call) => kindOf(call).model;
let inFlight = 0;
const pending = []; // inputs and removals to apply at the next turn

async function http(call, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf(call)}` },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

const bearer = (call) => ({ authorization: `Bearer ${keyOf(call)}` });

/** The scripted user answers a prompt: always yes. Shown again after a takeover, not asked. */
function answerPrompt(call, key) {
  pending.push(() =>
    list.handle(Date.now(), call, {
      type: 'input_answered',
      key,
      response: { action: 'accept', content: { confirm: true } },
    }),
  );
}

function request(call, send) {
  inFlight++;
  // `send` never rejects: a request without a usable answer becomes a failure input.
  send().then((input) => {
    inFlight--;
    pending.push(() => list.handle(Date.now(), call, input));
  });
}

function onOutput(o) {
  if (o.type === 'create' && o.intent.model !== 'job') {
    request(o.call, async () => {
      try {
        await db.query('INSERT INTO fleet_submits (call, resend, owner) VALUES ($1, $2, $3)', [o.call, false, owner]);
      } catch {
        return { type: 'create_unanswered' }; // not logged, so not sent
      }
      return mcpCreate(mcpUrl, o.intent, bearer(o.call));
    });
  } else if (o.type === 'create') {
    request(o.call, async () => {
      try {
        await db.query('INSERT INTO fleet_submits (call, resend, owner) VALUES ($1, $2, $3)', [
          o.call,
          o.resend,
          owner,
        ]);
        const r = await http(o.call, 'POST', '/jobs', {
          ...o.intent.request,
          idempotency_key: o.intent.idempotencyKey,
        });
        if (r.status === 202 || r.status === 200) return { type: 'job_created', job: r.body.job };
        process.stderr.write(
          `fleet host ${owner}: call ${o.call} submit answered ${r.status} ${JSON.stringify(r.body).slice(0, 200)}\n`,
        );
      } catch (e) {
        process.stderr.write(`fleet host ${owner}: call ${o.call} submit: ${e?.message}\n`);
      }
      return { type: 'create_unanswered' };
    });
  } else if (o.type === 'call' && o.output.type === 'send' && modelOf(o.call) !== 'job') {
    const req = o.output.request;
    request(o.call, () => mcpSend(mcpUrl, modelOf(o.call), req, bearer(o.call)));
  } else if (o.type === 'call' && o.output.type === 'button' && o.output.state === 'available') {
    pressOnce(o.call);
  } else if (o.type === 'call' && o.output.type === 'ask_user') {
    // Logged before it is shown: a prompt shown twice over the run would be two rows.
    inFlight++;
    db.query('INSERT INTO fleet_asks (call, key, owner) VALUES ($1, $2, $3)', [o.call, o.output.key, owner]).then(
      () => {
        inFlight--;
        answerPrompt(o.call, o.output.key);
      },
    );
  } else if (o.type === 'call' && o.output.type === 'send' && o.output.request.kind === 'cancel') {
    const req = o.output.request;
    request(o.call, async () => {
      try {
        const r = await http(o.call, 'POST', `/jobs/${req.handle}/cancel`, { idempotency_key: req.idempotencyKey });
        await db.query('INSERT INTO fleet_cancels_sent (call, owner) VALUES ($1, $2)', [o.call, owner]);
        if (r.status === 200) return { type: 'cancel_answered', answer: { kind: 'job', status: r.body.status } };
        const code = CANCEL_CODES.includes(r.body?.error?.code) ? r.body.error.code : 'other';
        return {
          type: 'cancel_answered',
          answer: { kind: 'job_error', httpStatus: r.status, code, cancelable: null },
        };
      } catch {
        return { type: 'cancel_answered', answer: { kind: 'no_answer' } };
      }
    });
  } else if (o.type === 'call' && o.output.type === 'send') {
    const req = o.output.request;
    request(o.call, async () => {
      try {
        if (req.kind === 'get') {
          const r = await http(o.call, 'GET', `/jobs/${req.handle}`);
          if (r.status === 200) return { type: 'job_polled', job: r.body };
          const failure = { kind: 'http', status: r.status, code: r.body?.error?.code ?? null };
          return { type: 'request_failed', request: 'get', failure };
        }
      } catch {
        /* transport */
      }
      return { type: 'request_failed', request: req.kind, failure: { kind: 'transport' } };
    });
  } else if (o.type === 'call' && (o.output.type === 'settled' || o.output.type === 'stopped')) {
    const outcome = o.output.type === 'settled' ? o.output.outcome : 'stopped';
    // Reported before the record goes: a crash between the two reports it again, a no-op.
    inFlight++;
    db.query(
      'INSERT INTO fleet_reports (call, outcome, owner, handle) VALUES ($1, $2, $3, $4) ON CONFLICT (call) DO NOTHING',
      [o.call, outcome, owner, list.record(o.call)?.handle ?? null],
    ).then(() => {
      inFlight--;
      pending.push(() => list.remove(o.call));
    });
  } else if (o.type === 'create_unanswered') {
    // An MCP tools/call that may or may not have made a task is never sent again: this
    // host had no way to look it up, so the call is reported as such.
    process.stderr.write(`fleet host ${owner}: call ${o.call} create unanswered\n`);
    inFlight++;
    db.query(
      'INSERT INTO fleet_reports (call, outcome, owner, handle) VALUES ($1, $2, $3, NULL) ON CONFLICT (call) DO NOTHING',
      [o.call, 'create_unanswered', owner],
    ).then(() => {
      inFlight--;
      pending.push(() => list.remove(o.call));
    });
  }
}

// The scripted user presses cancel on calls ending in 3 or 6 as soon as the button offers it,
// once over the call's life (a press in a written record survives the host: R-6).
function pressOnce(call) {
  if ((call % 10 !== 3 && call % 10 !== 6) || pressed.has(call)) return;
  pressed.add(call);
  pending.push(() => {
    // A call resumed from another host's record may hold a press already, or have ended.
    if (list.record(call)?.cancel !== 'available') return;
    try {
      list.handle(Date.now(), call, { type: 'cancel_pressed' });
      presses.push(call);
    } catch {
      /* the core refused the press: the button said why */
    }
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// How long this process's event loop stalls, for the diagnostics: a stall longer than the lease
// less its margin loses the host its leases.
let lastTick = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - lastTick > 400)
    process.stderr.write(`fleet host ${owner}: event loop stalled ${(now - lastTick).toFixed(0)} ms\n`);
  lastTick = now;
}, 100).unref();
// Renewed five times per lease on a timer of its own, so that a turn of the loop waiting on
// the network never lets a live host's leases run out.
let renewing = false;
setInterval(() => {
  if (renewing) return;
  renewing = true;
  store
    .renew({ ...lease, now: Date.now() })
    .catch(() => {})
    .finally(() => {
      renewing = false;
    });
}, leaseMs / 5);
let lastCheck = 0;
let lastClaim = 0;
for (;;) {
  const now = Date.now();
  if (now - lastClaim >= leaseMs / 5) {
    lastClaim = now;
    const claimed = await claimInto(list, store, { ...lease, now, limit: 50 });
    if (claimed.length) {
      await db.query('INSERT INTO fleet_claims (call, owner) SELECT unnest($1::bigint[]), $2', [claimed, owner]);
      // Prompts the last holder showed and the user had not answered are shown again as
      // state: not asked again, so not logged as asked.
      for (const call of claimed) for (const [key] of list.openPrompts(call)) answerPrompt(call, key);
    }
  }
  for (const f of pending.splice(0)) {
    try {
      f();
    } catch (e) {
      if (e?.code !== 'invalid_input') throw e; // a late answer for a call unloaded meanwhile
    }
  }
  const at = list.pollTimeout;
  if (at !== undefined && at <= Date.now()) list.timeout(Date.now());
  const logged = presses.splice(0);
  const lost = new Set(await pump(list, store, onOutput, () => ({ ...lease, now: Date.now() })));
  // The pump wrote the records holding these presses: from now on they are the user's. A call
  // whose write was refused (another host has it, or the lease is in its margin) kept no press.
  for (const call of logged) {
    if (lost.has(call)) continue;
    await db.query('INSERT INTO fleet_presses (call, owner) VALUES ($1, $2) ON CONFLICT DO NOTHING', [call, owner]);
  }
  if (list.size === 0 && inFlight === 0 && now - lastCheck > 200) {
    lastCheck = now;
    const { rows } = await db.query('SELECT count(*)::int AS n FROM fleet_reports');
    if (rows[0].n >= CALLS) break;
  }
  await sleep(10);
}
await store.close();
await db.end();
process.exit(0);
