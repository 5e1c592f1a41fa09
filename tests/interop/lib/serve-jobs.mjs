// `longcall serve-jobs` (the reference job server) for the job legs and the job mutants: start it
// and read its URL, stop it, run a scenario driver against it, and judge the job log it wrote.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { checkTranscripts, longcall, REPO, summarize } from './leg.mjs';

/**
 * Starts `longcall serve-jobs <serveArgs>` (give it `--port 0`); resolves with {child, url} once
 * it printed the URL it listens on, within `timeoutMs`. Its stderr goes to `onStderr` (a line
 * at a time) or, without one, to this process's stderr.
 */
export function startServeJobs(serveArgs, { onStderr, timeoutMs = 60000 } = {}) {
  const [cmd, args] = longcall(serveArgs);
  const child = spawn(cmd, args, { cwd: REPO, stdio: ['ignore', 'pipe', onStderr ? 'pipe' : 'inherit'] });
  if (onStderr) child.stderr.on('data', (d) => onStderr(String(d).trim()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve-jobs printed no URL in ${timeoutMs / 1000} s`)), timeoutMs);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
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

/** Stops a server started by [`startServeJobs`]: SIGTERM, then waits for it at most `graceMs`. */
export async function stopServeJobs(server, graceMs = 3000) {
  server.child.kill('SIGTERM');
  await new Promise((r) => {
    const t = setTimeout(r, graceMs);
    server.child.on('exit', () => {
      clearTimeout(t);
      r();
    });
  });
}

/**
 * Runs a scenario driver (a program that prints one JSON line per scenario) to its end, killed
 * after `timeoutMs`; resolves with {code, lines}. A line that is not JSON becomes a failing
 * `<name> output` scenario.
 */
export function runScenarios(cmd, args, { name, timeoutMs, log }) {
  return new Promise((resolve) => {
    const driver = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      log(`${name} timed out`);
      driver.kill('SIGKILL');
    }, timeoutMs);
    let out = '';
    driver.stdout.on('data', (d) => {
      out += d;
    });
    driver.stderr.on('data', (d) => log(`${name}: ${String(d).trimEnd()}`));
    driver.on('exit', (code) => {
      clearTimeout(timer);
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          try {
            return JSON.parse(l);
          } catch {
            return { scenario: `${name} output`, result: 'fail', detail: l.slice(0, 200) };
          }
        });
      resolve({ code, lines });
    });
  });
}

/** Emits the scenario "job log through longcall check": no MUST finding in the server's log. */
export function checkJobLog(emit, file) {
  const name = 'job log through longcall check';
  try {
    const [report] = checkTranscripts([file]);
    const must = report.must.length ? ` (${summarize(report.must)})` : '';
    const detail = `${path.relative(REPO, file)}: ${report.must.length} MUST, ${report.should.length} SHOULD${must}`;
    emit(name, report.must.length === 0 ? 'pass' : 'fail', detail);
  } catch (e) {
    emit(name, 'fail', e?.message ?? String(e));
  }
}
