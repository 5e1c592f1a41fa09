// Helpers for legs (tests/interop/legs/*.mjs). Leg protocol: one JSON object per line on stdout,
// {"leg","scenario","result":"pass"|"fail"|"skip","detail"}; logs on stderr; every wait bounded;
// exit non-zero on any failure.
import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { httpMessages } from '../../../pkg/node.js';
import { INTEROP_DIR } from './fixture.mjs';

export const REPO = path.resolve(INTEROP_DIR, '..', '..');
export const RESULTS = path.join(INTEROP_DIR, 'results');

export function makeLeg(leg) {
  let failed = 0;
  const emit = (scenario, result, detail = '') => {
    if (result === 'fail') failed++;
    process.stdout.write(`${JSON.stringify({ leg, scenario, result, detail: String(detail) })}\n`);
  };
  const log = (...a) => process.stderr.write(`[${leg}] ${a.join(' ')}\n`);
  /** Runs fn with a time bound; emits pass (fn's string as detail) or fail. */
  async function scenario(name, ms, fn) {
    const t0 = Date.now();
    let timer;
    try {
      const detail = await Promise.race([
        fn(),
        new Promise((_, rej) => {
          timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms`)), ms);
        }),
      ]);
      emit(name, 'pass', `${detail ?? ''} (${Date.now() - t0} ms)`.trim());
    } catch (e) {
      log(`${name}: ${e?.stack ?? e}`);
      emit(name, 'fail', `${e?.message ?? e} (${Date.now() - t0} ms)`);
    } finally {
      clearTimeout(timer);
    }
  }
  return { emit, log, scenario, failures: () => failed };
}

/**
 * The command that runs `longcall <args>`: the CLI binary in $LONGCALL_CLI (tests/interop/run
 * builds it once), else `cargo run -q -p longcall-cli --release` (a leg run by hand; give it
 * time to build). Returns [command, argv].
 */
export function longcall(args) {
  return process.env.LONGCALL_CLI
    ? [process.env.LONGCALL_CLI, args]
    : ['cargo', ['run', '-q', '-p', 'longcall-cli', '--release', '--', ...args]];
}

/**
 * Runs `longcall <args>` (bounded) and resolves with the JSON it printed. A non-zero exit is no
 * error when JSON came (`probe` and `check` exit 1 on a finding).
 */
export function longcallJson(args, { cwd = REPO, timeoutMs = 60000 } = {}) {
  const [cmd, argv] = longcall(args);
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { cwd, timeout: timeoutMs, maxBuffer: 64 << 20 }, (e, stdout) => {
      if (e && typeof e.code !== 'number') return reject(e);
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`longcall ${args[0]} printed no JSON (exit ${e?.code ?? 0})`));
      }
    });
  });
}

/**
 * `longcall check --json` on transcripts ([`longcall`]). Returns per file
 * {file, must: [...], should: [...]}.
 */
export function checkTranscripts(files) {
  const [cmd, argv] = longcall(['check', '--json', ...files]);
  let out;
  try {
    out = execFileSync(cmd, argv, { cwd: REPO, encoding: 'utf8', timeout: 600000, maxBuffer: 64 << 20 });
  } catch (e) {
    out = e.stdout; // exit 1 = a MUST finding; the JSON is still printed
    if (!out) throw e;
  }
  const doc = JSON.parse(out);
  if (doc.unreadable?.length) throw new Error(`unreadable transcripts: ${JSON.stringify(doc.unreadable)}`);
  return doc.files.map((f) => ({
    file: path.relative(REPO, f.file),
    model: f.model,
    must: f.findings.filter((x) => x.level === 'must'),
    should: f.findings.filter((x) => x.level === 'should'),
  }));
}

/** A one-line summary of findings: "rule xN, ...". */
export const summarize = (findings) => {
  const n = new Map();
  for (const f of findings) n.set(f.rule, (n.get(f.rule) ?? 0) + 1);
  return [...n].map(([r, c]) => `${r} x${c}`).join(', ');
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * How long after the server's terminal status the call settled (ms): `settledAt` minus the
 * `lastUpdatedAt` of the first answer (`onExchange` records, answers as they arrived) that shows
 * the task terminal. Same machine, same clock; `null` when no answer showed it.
 */
export function settledAfterTerminal(exchanges, settledAt) {
  for (const e of exchanges) {
    const r = exchangeAnswer(e)?.result;
    const task = r?.task ?? r;
    if (['completed', 'failed', 'cancelled'].includes(task?.status) && task.lastUpdatedAt) {
      const at = Date.parse(task.lastUpdatedAt);
      if (Number.isFinite(at)) return settledAt - at;
    }
  }
  return null;
}

/**
 * The JSON-RPC answer an `onExchange` record carries: the answer as the sender handed it back, or,
 * for an HTTP answer (`e.http`), the answer among the messages its body carries, as the core
 * lists them (a JSON body, an event stream's events).
 */
export function exchangeAnswer(e) {
  if (!e.http) return typeof e.answer === 'string' ? JSON.parse(e.answer) : e.answer;
  const messages = httpMessages(e.http, e.answer).map((text) => {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  });
  return messages.find((m) => m && !m.method && 'id' in m);
}
