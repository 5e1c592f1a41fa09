#!/usr/bin/env node
// Leg: longcall's own job host (`bindings/job-host`, the Rust `longcall-job-host`: the core's
// CallEndpoint and Wave over HTTP) against the reference job server `longcall serve-jobs` on
// 127.0.0.1. The host runs the scenarios and prints one JSON line each, with figures (calls,
// polls, how long after the terminal status the call settled); the server writes every
// exchange to results/job-host.jsonl, which then goes through `longcall check`. Leg protocol:
// lib/leg.mjs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeLeg, checkTranscripts, summarize, RESULTS, REPO } from '../lib/leg.mjs';

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

/** Runs the job host (bounded); resolves with its scenario lines. */
function runHost(url) {
  return new Promise((resolve) => {
    const host = spawn(HOST, ['--base-url', url, '--queue-limit', '100'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      log('job host timed out');
      host.kill('SIGKILL');
    }, 150000);
    let out = '';
    host.stdout.on('data', (d) => {
      out += d;
    });
    host.stderr.on('data', (d) => log(`host: ${String(d).trimEnd()}`));
    host.on('exit', (code) => {
      clearTimeout(timer);
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          try {
            return JSON.parse(l);
          } catch {
            return { scenario: 'host output', result: 'fail', detail: l.slice(0, 200) };
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
