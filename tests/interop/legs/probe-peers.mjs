// Leg: `longcall probe` against MCP servers nobody on the team wrote: fastmcp-tasks 4.1.4 (2026
// over Streamable HTTP) and the official SDK 1.32.2 server (2025, over Streamable HTTP and over
// stdio). A scenario passes when the probe could drive the server (exit 0 or 1) and, when it
// reports a finding, `longcall check` reproduces that finding from the shrunk transcript.
// Findings are the servers', listed in the detail and in results/probe-peers.json. Each scenario
// is bounded at 60 s.
import fs from 'node:fs';
import path from 'node:path';
import { fastmcpHttp, INTEROP_DIR, sdk2025Http, startFixture } from '../lib/fixture.mjs';
import { checkTranscripts, longcallJson, makeLeg, REPO, RESULTS, summarize } from '../lib/leg.mjs';

const { log, scenario, failures } = makeLeg('probe-peers');
const SEED = Number(process.env.PROBE_SEED ?? 20261130);
const OUT = path.join(RESULTS, 'probe-peers');
fs.mkdirSync(OUT, { recursive: true });

function probe(args) {
  const full = ['probe', '--seed', String(SEED), '--json', '--max-seconds', '20', '--shrink-seconds', '20', ...args];
  return longcallJson(full, { cwd: INTEROP_DIR, timeoutMs: 55000 });
}

const found = [];
function verdict(name, d) {
  if (d.exit === 2) throw new Error(`unusable: ${d.unusable}`);
  const rules = [...new Set((d.findings ?? []).map((f) => f.rule))];
  found.push({
    server: name,
    seed: d.seed,
    exit: d.exit,
    steps: d.steps,
    tasks: d.tasks,
    seconds: d.seconds,
    findings: d.findings,
    shrunk: d.shrunk && {
      steps: d.shrunk.steps,
      transcript: path.relative(REPO, d.shrunk.transcript),
      text: d.shrunk.text,
    },
  });
  if (d.shrunk) {
    const [again] = checkTranscripts([d.shrunk.transcript]);
    const rule = d.findings.find((f) => f.level === 'must')?.rule;
    if (rule && !again.must.some((f) => f.rule === rule))
      throw new Error(`longcall check does not reproduce ${rule} from ${d.shrunk.transcript}`);
    log(`${name}: shrunk scenario\n${d.shrunk.text}`);
  }
  const what = rules.length
    ? `findings: ${summarize(d.findings)}${d.shrunk ? `; shrunk to ${d.shrunk.steps} steps` : ''}`
    : 'no finding';
  return `${d.steps} steps, ${d.tasks} tasks in ${d.seconds.toFixed(1)} s (${d.revision}); ${what}`;
}

await scenario('fastmcp-tasks 4.1.4 (2026, HTTP)', 60000, async () => {
  const f = await startFixture(fastmcpHttp(), { timeoutMs: 30000 });
  try {
    return verdict('fastmcp-tasks 4.1.4', await probe([f.url, '--out', path.join(OUT, 'fastmcp')]));
  } finally {
    await f.stop();
  }
});

await scenario('SDK 1.32.2 (2025, HTTP)', 60000, async () => {
  const f = await startFixture(sdk2025Http());
  try {
    return verdict('SDK 1.32.2 HTTP', await probe([f.url, '--out', path.join(OUT, 'sdk-http')]));
  } finally {
    await f.stop();
  }
});

await scenario('SDK 1.32.2 (2025, stdio)', 60000, async () => {
  const server = ['--stdio', process.execPath, path.join(INTEROP_DIR, 'fixtures', 'sdk2025-server.mjs'), '--stdio'];
  // The tools whose tasks settle (the stdio fixture's own tool list minus the one that never ends).
  const tools = [
    'tool_error_completed',
    'failing_job',
    'protocol_error_job',
    'slow_steps={"steps":2,"stepMs":150}',
    'cancellable={"maxMs":800}',
  ].flatMap((t) => ['--tool', t]);
  return verdict('SDK 1.32.2 stdio', await probe(['--out', path.join(OUT, 'sdk-stdio'), ...tools, ...server]));
});

fs.writeFileSync(path.join(RESULTS, 'probe-peers.json'), JSON.stringify(found, null, 2) + '\n');
process.exit(failures() ? 1 : 0);
