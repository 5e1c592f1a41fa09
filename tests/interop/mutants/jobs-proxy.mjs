#!/usr/bin/env node
// Deliberately broken variants of the reference job server (`longcall serve-jobs`), for measuring
// `longcall probe --jobs`: the real server runs as a child process and a proxy in front of it
// rewrites its answers the way one kind of broken job API would. The reference server itself has
// no mutant switch.
//
//   node tests/interop/mutants/jobs-proxy.mjs --mutant NAME [--port N] [--max-lifetime-ms N]
//   -> prints `LISTENING http://127.0.0.1:PORT` on stdout when ready
//   node tests/interop/mutants/jobs-proxy.mjs --list   -> one `NAME<TAB>what it breaks<TAB>rule` per line
//
// The server: $LONGCALL_CLI serve-jobs (else `cargo run -p longcall-cli --release`), queue wait
// 600 ms, generation 800 ms, 1 queued job per key (so the probe meets `queue_full`), 2 running.
// `--mutant none` forwards everything unchanged. Binds 127.0.0.1 only; SIGTERM and SIGINT exit 0;
// exits by itself after --max-lifetime-ms (default 120000).
import http from 'node:http';
import { runMutantCli } from '../lib/mutant-cli.mjs';
import { startServeJobs } from '../lib/serve-jobs.mjs';

export const SERVE_ARGS = [
  'serve-jobs',
  '--port',
  '0',
  '--queue-wait-ms',
  '600',
  '--generation-ms',
  '800',
  '--queue-limit',
  '1',
  '--concurrency',
  '2',
  '--credits-per-key',
  '100000',
];

const TERMINAL = new Set(['completed', 'failed', 'nsfw', 'canceled']);
const envelope = (status, code, message) => ({
  status,
  body: { error: { code, message, retryable: false } },
});
/** The job a path names (`/v1/jobs/{id}/...`), if any. */
const jobOf = (p) => /^\/v1\/jobs\/([^/]+)\//.exec(p)?.[1];
const statusOf = (p) => /^\/v1\/jobs\/[^/]+\/status$/.test(p);
const cancelOf = (p) => /^\/v1\/jobs\/[^/]+\/cancel$/.test(p);
const withStatus = (answer, s) => ({
  ...answer,
  body: { ...answer.body, data: { ...answer.body.data, sume_status: s, job: { ...answer.body.data?.job, status: s } } },
});

// Each mutant: {what, rule, request?(ctx) -> answer|undefined (answer without asking upstream),
// answer?(ctx) -> answer|undefined (rewrite), forward?(headers) (rewrite request headers)}.
// An answer is {status, body, headers?}. ctx: {method, path, id, auth, job (state), answer, st}.
export const MUTANTS = {
  none: { what: 'the reference job server, unchanged', rule: '(no finding)' },
  'canceled-after-409': {
    what: 'a job whose cancel was refused as started (409) is reported "canceled" afterwards',
    rule: 'illegal_transition (X-10)',
    answer({ path: p, job, answer }) {
      if (cancelOf(p) && answer.body?.error?.code === 'job_generation_already_started') job.refused = true;
      if (statusOf(p) && job.refused && answer.status === 200) return withStatus(answer, 'canceled');
    },
  },
  'foreign-403': {
    what: "another key's job answered 403 forbidden instead of like an unknown id",
    rule: 'foreign_id_distinguishable (X-9)',
    request({ id, auth, st }) {
      const owner = id && st.owner.get(id);
      if (owner !== undefined && owner !== auth) return envelope(403, 'forbidden', 'this job belongs to another key');
    },
  },
  'terminal-flip': {
    what: 'a completed job reads "processing" again from its second status answer after it settled',
    rule: 'terminal_conflict (X-2)',
    answer({ path: p, job, answer }) {
      const s = answer.body?.data?.sume_status;
      if (!statusOf(p) || !s) return;
      if (TERMINAL.has(s)) job.settledPolls = (job.settledPolls ?? 0) + 1;
      if (s === 'completed' && job.settledPolls >= 2) return withStatus(answer, 'processing');
    },
  },
  'queue-full-no-retry-after': {
    what: '429 queue_full answered without Retry-After',
    rule: 'retry_after_missing (X-12)',
    answer({ answer }) {
      if (answer.status === 429) {
        const { 'retry-after': _, ...headers } = answer.headers;
        return { ...answer, headers };
      }
    },
  },
  'retry-after-ignored': {
    what: 'status requests rate-limited with "Retry-After: 1", but the limiter holds for 3 s',
    rule: 'poll_refused_at_floor (X-13)',
    request({ path: p, id, auth, job, st }) {
      // Only the owner's requests: another key's requests stay answered like unknown ids.
      if (!statusOf(p) || st.owner.get(id) !== auth) return;
      const now = Date.now();
      if (job.limitedUntil !== undefined && now < job.limitedUntil) return limited();
      const last = job.lastStatus;
      job.lastStatus = now;
      if (last !== undefined && now - last < 1000) {
        job.limitedUntil = now + 3000;
        return limited();
      }
    },
  },
  'cancel-replay-409': {
    what: 'cancelling a canceled job answered 409 job_not_cancelable instead of the same canceled job',
    rule: 'cancel_answer_breaks_revision (X-6)',
    request({ path: p, job }) {
      if (cancelOf(p) && job.canceled) return envelope(409, 'job_not_cancelable', 'the job has ended');
    },
    answer({ path: p, job, answer }) {
      if (cancelOf(p) && answer.status === 200) job.canceled = true;
    },
  },
  'status-404-fresh': {
    what: 'a status request answered 404 not_found for the first 1.5 s after the submit',
    rule: 'created_job_not_found (X-7)',
    request({ path: p, job }) {
      if (statusOf(p) && job.createdAt !== undefined && Date.now() - job.createdAt < 1500)
        return envelope(404, 'not_found', 'job not found');
    },
  },
  'key-ignored': {
    what: 'the Idempotency-Key header is ignored: a retried submit makes a second job',
    rule: 'idempotency_key_not_replayed (X-8)',
    forward(headers) {
      delete headers['idempotency-key'];
    },
  },
  'no-refund': {
    what: 'a job canceled while queued is answered refunded: false',
    rule: 'cancel_not_refunded (X-11)',
    answer({ path: p, answer }) {
      if (cancelOf(p) && answer.status === 200 && answer.body?.data)
        return { ...answer, body: { ...answer.body, data: { ...answer.body.data, refunded: false } } };
    },
  },
  'wait-early': {
    what: 'jobs_wait answers timed_out: false while the jobs it waits for are still running',
    rule: 'wait_condition_broken (X-14)',
    answer({ path: p, answer }) {
      if (p === '/jobs/wait' && answer.status === 200 && answer.body?.timed_out)
        return { ...answer, body: { ...answer.body, timed_out: false } };
    },
  },
};

function limited() {
  return {
    status: 429,
    headers: { 'retry-after': '1' },
    body: { error: { code: 'rate_limit_exceeded', message: 'too many requests', retryable: true } },
  };
}

export async function startMutant(name, port = 0) {
  const m = MUTANTS[name];
  if (!m) throw new Error(`unknown mutant ${name}; --list shows them`);
  const upstream = await startServeJobs(SERVE_ARGS, { timeoutMs: 120000 });
  const st = { owner: new Map(), jobs: new Map() };
  const jobState = (id) => {
    if (!id) return {};
    if (!st.jobs.has(id)) st.jobs.set(id, {});
    return st.jobs.get(id);
  };
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const p = req.url.split('?')[0];
    const id = jobOf(p) ? decodeURIComponent(jobOf(p)) : undefined;
    const auth = req.headers.authorization ?? '';
    const ctx = { method: req.method, path: p, id, auth, job: jobState(id), st };
    const reply = (a) =>
      res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) }).end(JSON.stringify(a.body));
    const early = m.request?.(ctx);
    if (early) return reply(early);
    const headers = {};
    for (const h of ['content-type', 'authorization', 'idempotency-key'])
      if (req.headers[h] !== undefined) headers[h] = req.headers[h];
    m.forward?.(headers);
    const up = await fetch(upstream.url + req.url, {
      method: req.method,
      headers,
      body: req.method === 'POST' && raw ? raw : undefined,
    });
    const text = await up.text();
    const outHeaders = {};
    for (const h of ['retry-after', 'x-sume-request-id']) if (up.headers.get(h)) outHeaders[h] = up.headers.get(h);
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      res.writeHead(up.status, outHeaders).end(text);
      return;
    }
    const answer = { status: up.status, headers: outHeaders, body };
    // What the proxy learns from the real answer (before any rewrite).
    const made = body?.data?.request_id ?? body?.job?.id;
    if (req.method === 'POST' && /^\/v1\/(image|video)-router\/generate$|^\/jobs$/.test(p) && made && up.status < 300) {
      if (!st.owner.has(made)) {
        st.owner.set(made, auth);
        jobState(made).createdAt = Date.now();
      }
    }
    ctx.answer = answer;
    reply(m.answer?.(ctx) ?? answer);
  });
  const url = await new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)),
  );
  return {
    url,
    async close() {
      server.closeAllConnections?.();
      await new Promise((r) => server.close(() => r()));
      upstream.child.kill('SIGTERM');
    },
  };
}

await runMutantCli(import.meta.url, MUTANTS, startMutant);
