#!/usr/bin/env node
// Leg: longcall's own job host (`bindings/job-host`, the Rust `longcall-job-host`: the core's
// CallEndpoint and Wave over HTTP) against the reference job server `longcall serve-jobs` on
// 127.0.0.1. The host runs the scenarios and prints one JSON line each, with figures (calls,
// polls, how long after the terminal status the call settled); the server writes every
// exchange to results/job-host.jsonl, which then goes through `longcall check`. Leg protocol:
// lib/leg.mjs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeLeg, RESULTS, REPO } from '../lib/leg.mjs';
import { checkJobLog, runScenarios, startServeJobs, stopServeJobs } from '../lib/serve-jobs.mjs';

const LEG = 'job-host';
const { emit, log, failures } = makeLeg(LEG);
const hardStop = setTimeout(() => {
  log('hard timeout');
  process.exit(3);
}, 220000);
hardStop.unref();

// The host binary: $LONGCALL_JOB_HOST (tests/interop/run builds it), else built here, bounded.
function jobHost() {
  if (process.env.LONGCALL_JOB_HOST) return process.env.LONGCALL_JOB_HOST;
  const build = spawnSync('cargo', ['build', '-q', '-p', 'longcall-job-host', '--release'], {
    cwd: REPO,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 600000,
  });
  if (build.status !== 0) throw new Error(`cargo build -p longcall-job-host: ${String(build.stderr).slice(0, 300)}`);
  const meta = spawnSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: 60000,
  });
  return path.join(JSON.parse(meta.stdout).target_directory, 'release', 'longcall-job-host');
}
let HOST;
try {
  HOST = jobHost();
} catch (e) {
  emit('build', 'fail', e?.message ?? String(e));
  process.exit(1);
}

fs.mkdirSync(RESULTS, { recursive: true });
const file = path.join(RESULTS, 'job-host.jsonl');
// Queue wait 1 s (the cancel-while-queued press lands at 100 ms, the cancel-after-start press at
// 1.4 s), generation 1 s; one key may queue 100 jobs (the wave) and run 20 at once.
const serveArgs = [
  'serve-jobs',
  '--port',
  '0',
  '--queue-wait-ms',
  '1000',
  '--generation-ms',
  '1000',
  '--queue-limit',
  '100',
  '--concurrency',
  '20',
  '--credits-per-key',
  '1000',
  '--log',
  file,
  '--max-seconds',
  '200',
];
/** Runs the job host against `url` (bounded); resolves with its scenario lines. */
const runHost = (url) =>
  runScenarios(HOST, ['--base-url', url, '--queue-limit', '100'], { name: 'host', timeoutMs: 150000, log });

let server = null;
try {
  server = await startServeJobs(serveArgs, { onStderr: (l) => log(`server: ${l}`) });
  log(`serve-jobs pid ${server.child.pid} at ${server.url}`);
  const { code, lines } = await runHost(server.url);
  for (const l of lines) {
    const f = l.figures ?? {};
    const figs = [
      f.calls !== undefined && `${f.calls} calls`,
      f.polls !== undefined && `${f.polls} polls`,
      f.settled_after_terminal_median_ms !== undefined && `settled ${f.settled_after_terminal_median_ms} ms (median)`,
      f.settled_after_terminal_ms !== undefined &&
        `settled ${f.settled_after_terminal_ms} ms${f.settled_after_terminal_median_ms !== undefined ? ' (max)' : ''} after terminal`,
    ]
      .filter(Boolean)
      .join(', ');
    emit(l.scenario, l.result, `${l.detail}${figs ? ` [${figs}]` : ''}`);
  }
  if (code !== 0 && !lines.some((l) => l.result === 'fail')) emit('host', 'fail', `exit ${code}`);
  if (lines.length < 6) emit('host', 'fail', `${lines.length} of 6 scenario lines`);
  const counters = await (await fetch(`${server.url}/_counters`)).json();
  const perKey = Object.values(counters.jobs_per_idempotency_key);
  emit(
    'one job per Idempotency-Key',
    perKey.every((n) => n === 1) ? 'pass' : 'fail',
    `${counters.jobs_created} jobs for ${perKey.length} keys, ${counters.submits} submits, ${counters.polls} polls, ${counters.cancels} cancels`,
  );
} catch (e) {
  emit('server', 'fail', e?.message ?? String(e));
} finally {
  if (server) await stopServeJobs(server);
}

checkJobLog(emit, file);
process.exit(failures() ? 1 : 0);
