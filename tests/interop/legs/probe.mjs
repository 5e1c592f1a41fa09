// Leg: `longcall probe` against the reference MCP tasks server (no finding expected) and against
// each broken variant in tests/interop/mutants/proxy.mjs (a finding expected, shrunk to at most 8
// steps). Every scenario is bounded at 80 s (probing at most 30 s, shrinking at most 45 s).
//
//   node legs/probe.mjs [MUTANT...]     (from tests/interop; tests/interop/run probe)
//
// Writes results/probe-mutants.json and prints the README table on stderr.
import fs from 'node:fs';
import path from 'node:path';
import { INTEROP_DIR, startFixture } from '../lib/fixture.mjs';
import { longcallJson, makeLeg, REPO, RESULTS } from '../lib/leg.mjs';
import { MUTANTS } from '../mutants/proxy.mjs';

const { emit, log, scenario, failures } = makeLeg('probe');
const PROXY = path.join(INTEROP_DIR, 'mutants', 'proxy.mjs');
const TOOLS = path.join(INTEROP_DIR, 'mutants', 'tools.json');
const SEED = Number(process.env.PROBE_SEED ?? 20261130);
const OUT = path.join(RESULTS, 'probe');
fs.mkdirSync(OUT, { recursive: true });

function probe(url, extra = [], seconds = 30) {
  const args = [
    'probe',
    url,
    '--seed',
    String(SEED),
    '--config',
    TOOLS,
    '--auth',
    'Bearer alice',
    '--auth',
    'Bearer bob',
    '--strict',
    '--json',
    '--max-seconds',
    String(seconds),
    // Room for ddmin to finish on a slow machine: the hardest mutants need 15-30 s of replays
    // (each replay waits out the server's real poll intervals).
    '--shrink-seconds',
    '45',
    ...extra,
  ];
  return longcallJson(args, { timeoutMs: 78000 });
}

const proxySpec = (name) => ({
  cmd: process.execPath,
  args: [PROXY, '--mutant', name, '--max-lifetime-ms', '120000'],
  stream: 'stdout',
  name: `mutant ${name}`,
});
const referenceSpec = (...flags) => ({
  cmd: process.execPath,
  args: [path.join(REPO, 'pkg', 'examples', 'mcp-tasks-server.mjs'), ...flags, '--max-lifetime-ms', '120000'],
  stream: 'stdout',
  name: 'reference',
});

const rows = [];
const wanted = process.argv.slice(2);
const names = Object.keys(MUTANTS).filter((n) => n !== 'none' && (!wanted.length || wanted.includes(n)));

if (!wanted.length) {
  await scenario('reference server: no finding', 60000, async () => {
    const f = await startFixture(referenceSpec());
    try {
      const d = await probe(f.url, ['--out', path.join(OUT, 'reference')]);
      if (d.exit !== 0) throw new Error(`exit ${d.exit}: ${JSON.stringify(d.findings ?? d.unusable).slice(0, 400)}`);
      return `${d.steps} steps, ${d.requests} requests, ${d.tasks} tasks in ${d.seconds.toFixed(1)} s, seed ${d.seed}`;
    } finally {
      await f.stop();
    }
  });
  // The 2025 wire over HTTP: every request after initialize names its version (a server that
  // also speaks 2026 reads one without it as 2026).
  await scenario('reference server on 2025 (--serve-2025): no finding', 40000, async () => {
    const f = await startFixture(referenceSpec('--serve-2025'));
    try {
      const d = await probe(f.url, ['--revision', '2025', '--out', path.join(OUT, 'reference-2025')], 10);
      if (d.exit !== 0 || d.revision !== '2025-11-25')
        throw new Error(`exit ${d.exit}, ${d.revision}: ${JSON.stringify(d.findings ?? d.unusable).slice(0, 400)}`);
      return `${d.steps} steps, ${d.requests} requests, ${d.tasks} tasks in ${d.seconds.toFixed(1)} s (${d.revision})`;
    } finally {
      await f.stop();
    }
  });
}

for (const name of names) {
  const m = MUTANTS[name];
  const expected = m.rule.split(' ')[0];
  await scenario(`mutant ${name}`, 60000, async () => {
    const f = await startFixture(proxySpec(name));
    try {
      const d = await probe(f.url, ['--out', path.join(OUT, name)]);
      const failing = (d.findings ?? []).filter((x) => x.level === 'must' || d.strict);
      const found = failing[0]?.rule ?? '-';
      const row = {
        mutant: name,
        breaks: m.what,
        expected,
        exit: d.exit,
        found,
        seconds: d.seconds,
        steps: d.steps,
        shrunk: d.shrunk?.steps ?? null,
        shrinkSeconds: d.shrunk?.seconds ?? null,
        shortestAfter: d.shrunk?.best_seconds ?? null,
        transcript: d.shrunk ? path.relative(REPO, d.shrunk.transcript) : null,
      };
      rows.push(row);
      if (d.exit !== 1) throw new Error(`not caught (exit ${d.exit}) in ${d.seconds?.toFixed(1)} s`);
      if (d.seconds > 30) throw new Error(`caught after ${d.seconds.toFixed(1)} s (limit 30 s)`);
      if (!(d.shrunk?.steps <= 8)) throw new Error(`shrunk to ${d.shrunk?.steps} steps (limit 8)`);
      return `caught by ${found}${found === expected ? '' : ` (expected ${expected})`} after ${d.steps} steps, ${d.seconds.toFixed(1)} s; shrunk to ${d.shrunk.steps} steps in ${d.shrunk.seconds.toFixed(1)} s (the shortest after ${d.shrunk.best_seconds.toFixed(1)} s)`;
    } finally {
      await f.stop();
    }
  });
}

fs.writeFileSync(path.join(RESULTS, 'probe-mutants.json'), JSON.stringify({ seed: SEED, rows }, null, 2) + '\n');
log(`\n| mutant | what it breaks | caught by | after | steps | shrunk to |\n|---|---|---|---|---|---|`);
for (const r of rows)
  log(
    `| \`${r.mutant}\` | ${r.breaks} | ${r.exit === 1 ? `\`${r.found}\`` : 'not caught'} | ${r.seconds?.toFixed(1)} s | ${r.steps} | ${r.shrunk ?? '-'} (${r.shrinkSeconds?.toFixed(1) ?? '-'} s) |`,
  );
log(`caught ${rows.filter((r) => r.exit === 1).length} of ${rows.length}`);
if (!rows.length && wanted.length) emit('mutants', 'skip', `no mutant named ${wanted.join(', ')}`);
process.exit(failures() ? 1 : 0);
