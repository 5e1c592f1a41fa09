// Leg: `longcall probe --jobs` against the reference job server `longcall serve-jobs` (no
// finding expected) and against each broken variant in tests/interop/mutants/jobs-proxy.mjs (a
// finding expected within 30 s, shrunk to at most 8 steps). Every scenario is bounded at 110 s
// (probing at most 30 s, shrinking at most 75 s); scenarios run four at a time (each its own
// server; the probes mostly sleep at the floors), so the leg stays within the runner's 240 s.
//
//   node legs/probe-jobs.mjs [MUTANT...]     (from tests/interop; tests/interop/run probe-jobs)
//
// Writes results/probe-jobs-mutants.json and prints the README table on stderr.
import fs from 'node:fs';
import path from 'node:path';
import { INTEROP_DIR, startFixture } from '../lib/fixture.mjs';
import { longcallJson, makeLeg, REPO, RESULTS } from '../lib/leg.mjs';
import { startServeJobs, stopServeJobs } from '../lib/serve-jobs.mjs';
import { MUTANTS, SERVE_ARGS } from '../mutants/jobs-proxy.mjs';

const { emit, log, scenario, failures } = makeLeg('probe-jobs');
const PROXY = path.join(INTEROP_DIR, 'mutants', 'jobs-proxy.mjs');
const SEED = Number(process.env.PROBE_SEED ?? 20261201);
const OUT = path.join(RESULTS, 'probe-jobs');
fs.mkdirSync(OUT, { recursive: true });

function probe(url, extra = []) {
  const args = [
    'probe',
    '--jobs',
    url,
    '--seed',
    String(SEED),
    '--auth',
    'Bearer alice',
    '--auth',
    'Bearer bob',
    '--strict',
    '--json',
    '--max-seconds',
    '30',
    // Room for ddmin to finish on a slow machine: the hardest mutants need 15-30 s of replays
    // (each replay waits out the server's real poll intervals), and terminal-flip, with other
    // legs on the same two cores, still had 14 steps after 45 s of a shrink that takes 21 s idle.
    '--shrink-seconds',
    '75',
    // The job API gives no poll interval: the probe's own floor, well above the server's needs.
    '--default-interval-ms',
    '300',
    ...extra,
  ];
  return longcallJson(args, { timeoutMs: 108000 });
}

/** The reference server itself, no proxy in front; resolves with {url, stop}. */
async function startReference() {
  const server = await startServeJobs([...SERVE_ARGS, '--max-seconds', '120'], {
    onStderr: (l) => log(`serve-jobs: ${l}`),
  });
  return { url: server.url, stop: () => stopServeJobs(server) };
}

const proxySpec = (name) => ({
  cmd: process.execPath,
  args: [PROXY, '--mutant', name, '--max-lifetime-ms', '120000'],
  stream: 'stdout',
  name: `job mutant ${name}`,
});

const rows = [];
const wanted = process.argv.slice(2);
const names = Object.keys(MUTANTS).filter((n) => n !== 'none' && (!wanted.length || wanted.includes(n)));

const jobs = [];
if (!wanted.length)
  jobs.push(() =>
    scenario('reference job server: no finding', 60000, async () => {
      const f = await startReference();
      try {
        const d = await probe(f.url, ['--out', path.join(OUT, 'reference')]);
        if (d.exit !== 0) throw new Error(`exit ${d.exit}: ${JSON.stringify(d.findings ?? d.unusable).slice(0, 400)}`);
        return `${d.steps} steps, ${d.requests} requests, ${d.jobs} jobs in ${d.seconds.toFixed(1)} s (${d.revision}), seed ${d.seed}`;
      } finally {
        await f.stop();
      }
    }),
  );

for (const name of names) {
  const m = MUTANTS[name];
  const expected = m.rule.split(' ')[0];
  jobs.push(() =>
    scenario(`job mutant ${name}`, 110000, async () => {
      const f = await startFixture(proxySpec(name), { timeoutMs: 30000 });
      try {
        const d = await probe(f.url, ['--out', path.join(OUT, name)]);
        const failing = (d.findings ?? []).filter((x) => x.level === 'must' || d.strict);
        const found = failing[0]?.rule ?? '-';
        rows.push({
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
        });
        if (d.exit !== 1) throw new Error(`not caught (exit ${d.exit}) in ${d.seconds?.toFixed(1)} s`);
        if (d.seconds > 30) throw new Error(`caught after ${d.seconds.toFixed(1)} s (limit 30 s)`);
        if (!(d.shrunk?.steps <= 8)) throw new Error(`shrunk to ${d.shrunk?.steps} steps (limit 8)`);
        return `caught by ${found}${found === expected ? '' : ` (expected ${expected})`} after ${d.steps} steps, ${d.seconds.toFixed(1)} s; shrunk to ${d.shrunk.steps} steps in ${d.shrunk.seconds.toFixed(1)} s (the shortest after ${d.shrunk.best_seconds.toFixed(1)} s)`;
      } finally {
        await f.stop();
      }
    }),
  );
}

// A pool of POOL scenarios at a time.
const POOL = Number(process.env.PROBE_JOBS_POOL ?? 4);
await Promise.all(
  Array.from({ length: Math.min(POOL, jobs.length) }, async () => {
    while (jobs.length) await jobs.shift()();
  }),
);
const order = Object.keys(MUTANTS);
rows.sort((a, b) => order.indexOf(a.mutant) - order.indexOf(b.mutant));

fs.writeFileSync(path.join(RESULTS, 'probe-jobs-mutants.json'), `${JSON.stringify({ seed: SEED, rows }, null, 2)}\n`);
log(`\n| mutant | what it breaks | caught by | after | steps | shrunk to |\n|---|---|---|---|---|---|`);
for (const r of rows)
  log(
    `| \`${r.mutant}\` | ${r.breaks} | ${r.exit === 1 ? `\`${r.found}\`` : 'not caught'} | ${r.seconds?.toFixed(1)} s | ${r.steps} | ${r.shrunk ?? '-'} (${r.shrinkSeconds?.toFixed(1) ?? '-'} s) |`,
  );
log(`caught ${rows.filter((r) => r.exit === 1).length} of ${rows.length}`);
if (!rows.length && wanted.length) emit('mutants', 'skip', `no mutant named ${wanted.join(', ')}`);
process.exit(failures() ? 1 : 0);
