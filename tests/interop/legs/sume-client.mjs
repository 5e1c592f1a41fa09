#!/usr/bin/env node
// Leg: the official Sume Open API client (PyPI sume-client 0.1.1, unchanged, in .venv) against
// the reference job server `longcall serve-jobs` on 127.0.0.1. The scenarios are in
// sume-client.py (one JSON line each, with figures); the server writes every exchange to
// results/sume-client.jsonl, which then goes through `longcall check`. Leg protocol: lib/leg.mjs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VENV_PYTHON } from '../lib/fixture.mjs';
import { makeLeg, RESULTS } from '../lib/leg.mjs';
import { checkJobLog, runScenarios, startServeJobs, stopServeJobs } from '../lib/serve-jobs.mjs';

const LEG = 'sume-client';
const { emit, log, failures } = makeLeg(LEG);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const hardStop = setTimeout(() => {
  log('hard timeout');
  process.exit(3);
}, 170000);
hardStop.unref();

if (
  !fs.existsSync(VENV_PYTHON) ||
  spawnSync(VENV_PYTHON, ['-c', 'import sume_client'], { timeout: 20000 }).status !== 0
) {
  emit('client', 'skip', `no sume_client in ${VENV_PYTHON}: run tests/interop/install.sh (INTEROP_SKIP_PY unset)`);
  process.exit(0);
}

fs.mkdirSync(RESULTS, { recursive: true });
const file = path.join(RESULTS, 'sume-client.jsonl');
const serveArgs = [
  'serve-jobs',
  '--port',
  '0',
  '--queue-wait-ms',
  '500',
  '--generation-ms',
  '1500',
  '--log',
  file,
  '--max-seconds',
  '160',
];
/** Runs the Python driver against `url` (bounded); resolves with its scenario lines. */
const runDriver = (url) =>
  runScenarios(VENV_PYTHON, [path.join(HERE, 'sume-client.py'), '--base-url', url], {
    name: 'driver',
    timeoutMs: 120000,
    log,
  });

let server = null;
try {
  server = await startServeJobs(serveArgs, { onStderr: (l) => log(`server: ${l}`) });
  log(`serve-jobs pid ${server.child.pid} at ${server.url}`);
  const { code, lines } = await runDriver(server.url);
  for (const l of lines) {
    const f = l.figures ?? {};
    const figs = [
      f.calls !== undefined && `${f.calls} calls`,
      f.polls !== undefined && `${f.polls} polls`,
      f.settled_after_terminal_ms !== undefined && `settled ${f.settled_after_terminal_ms} ms after terminal`,
      f.ms !== undefined && `${f.ms} ms`,
    ]
      .filter(Boolean)
      .join(', ');
    emit(l.scenario, l.result, `${l.detail}${figs ? ` [${figs}]` : ''}`);
  }
  if (code !== 0 && !lines.some((l) => l.result === 'fail')) emit('driver', 'fail', `exit ${code}`);
  const counters = await (await fetch(`${server.url}/_counters`)).json();
  const perKey = Object.values(counters.jobs_per_idempotency_key);
  emit(
    'one job per Idempotency-Key',
    perKey.every((n) => n === 1) ? 'pass' : 'fail',
    `${counters.jobs_created} jobs for ${perKey.length} keys, ${counters.submits} submits, ${counters.polls} polls, ${counters.scripted} scripted answers`,
  );
} catch (e) {
  emit('server', 'fail', e?.message ?? String(e));
} finally {
  if (server) await stopServeJobs(server);
}

checkJobLog(emit, file);
process.exit(failures() ? 1 : 0);
