#!/usr/bin/env node
// Leg: the official Sume Open API client (PyPI sume-client 0.1.1, unchanged, in .venv) against
// the reference job server `longcall serve-jobs` on 127.0.0.1. The scenarios are in
// sume-client.py (one JSON line each, with figures); the server writes every exchange to
// results/sume-client.jsonl, which then goes through `longcall check`. Leg protocol: lib/leg.mjs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VENV_PYTHON } from '../lib/fixture.mjs';
import { makeLeg, checkTranscripts, summarize, RESULTS, REPO } from '../lib/leg.mjs';

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
const [cmd, args] = process.env.LONGCALL_CLI
  ? [process.env.LONGCALL_CLI, serveArgs]
  : ['cargo', ['run', '-q', '-p', 'longcall-cli', '--release', '--', ...serveArgs]];

/** Starts the server; resolves with {child, url} once it printed its URL (bounded). */
function startServer() {
  const child = spawn(cmd, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.on('data', (d) => log(`server: ${String(d).trim()}`));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve-jobs printed no URL in 60 s')), 60000);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve-jobs exited ${code}`));
    });
  });
}

/** Runs the Python driver (bounded); resolves with its scenario lines. */
function runDriver(url) {
  return new Promise((resolve) => {
    const py = spawn(VENV_PYTHON, [path.join(HERE, 'sume-client.py'), '--base-url', url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => {
      log('driver timed out');
      py.kill('SIGKILL');
    }, 120000);
    let out = '';
    py.stdout.on('data', (d) => {
      out += d;
    });
    py.stderr.on('data', (d) => log(`driver: ${String(d).trimEnd()}`));
    py.on('exit', (code) => {
      clearTimeout(timer);
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          try {
            return JSON.parse(l);
          } catch {
            return { scenario: 'driver output', result: 'fail', detail: l.slice(0, 200) };
          }
        });
      resolve({ code, lines });
    });
  });
}

let server = null;
try {
  server = await startServer();
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
  if (server) {
    server.child.kill('SIGTERM');
    await new Promise((r) => {
      const t = setTimeout(r, 3000);
      server.child.on('exit', () => {
        clearTimeout(t);
        r();
      });
    });
  }
}

try {
  const [report] = checkTranscripts([file]);
  const detail = `${path.relative(REPO, file)}: ${report.must.length} MUST, ${report.should.length} SHOULD${report.must.length ? ` (${summarize(report.must)})` : ''}`;
  emit('job log through longcall check', report.must.length === 0 ? 'pass' : 'fail', detail);
} catch (e) {
  emit('job log through longcall check', 'fail', e?.message ?? String(e));
}
process.exit(failures() ? 1 : 0);
