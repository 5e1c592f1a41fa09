#!/usr/bin/env node
// Leg `rust-host`: the Rust host example (bindings/example-host) drives calls on the reference
// MCP tasks server (pkg/examples/mcp-tasks-server.mjs, Streamable HTTP, both revisions) through
// the core's CallEndpoint: a task with an input, MRTR then a task, a cancel, a plain result, a
// failed task; on 2025, inputs asked on the tasks/result stream (rule I-10) and a cancel.
// Each scenario asserts the one JSON line the host prints when the call settles.
//
//   node tests/interop/legs/rust-host.mjs     (after npm --prefix pkg run build)
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startFixture } from '../lib/fixture.mjs';
import { makeLeg, REPO } from '../lib/leg.mjs';

const { emit, log, scenario, failures } = makeLeg('rust-host');

if (!existsSync(join(REPO, 'pkg/dist/longcall_bg.wasm'))) {
  emit('setup', 'fail', 'pkg/dist missing: run npm --prefix pkg run build');
  process.exit(1);
}
execFileSync('cargo', ['build', '-q', '-p', 'longcall-example-host'], {
  cwd: REPO,
  stdio: ['ignore', 'ignore', 'inherit'],
  timeout: 600_000,
});
const meta = JSON.parse(
  execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: REPO, encoding: 'utf8' }),
);
const HOST = join(meta.target_directory, 'debug', 'longcall-example-host');

const server = await startFixture(
  {
    name: 'reference-tasks-server',
    cmd: process.execPath,
    args: [join(REPO, 'pkg/examples/mcp-tasks-server.mjs'), '--serve-2025', '--max-lifetime-ms', '200000'],
    cwd: REPO,
  },
  { timeoutMs: 15_000 },
);
log(`server ${server.url}`);

function host(args) {
  return new Promise((resolve, reject) => {
    execFile(HOST, ['--url', server.url, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      log(stderr.trim().split('\n').join(' | '));
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`no JSON line (exit ${err?.code}): ${stdout} ${stderr}`));
      }
    });
  });
}
const expect = (got, want) => {
  for (const [k, v] of Object.entries(want)) {
    const g = typeof v === 'string' && k === 'text' ? JSON.stringify(got.result) : got[k];
    if (k === 'text' ? !g.includes(v) : g !== v)
      throw new Error(`${k}: want ${JSON.stringify(v)}, got ${JSON.stringify(got)}`);
  }
  return `${got.outcome} at ${got.ms} ms`;
};

try {
  await scenario('task with an input answered (tasks/update)', 60_000, async () =>
    expect(
      await host([
        '--tool',
        'confirm_delete',
        '--args',
        '{"filename":"a.txt"}',
        '--answer',
        '{"action":"accept","content":{"confirm":true}}',
      ]),
      { outcome: 'succeeded', status: 'completed', text: 'Deleted a.txt', violations: 0 },
    ),
  );
  await scenario('MRTR round, then a task', 60_000, async () =>
    expect(await host(['--tool', 'test_tool_with_task', '--answer', '{"action":"accept","content":{"name":"Ada"}}']), {
      outcome: 'succeeded',
      status: 'completed',
      text: 'Hello Ada',
      violations: 0,
    }),
  );
  await scenario('cancel pressed while working ends cancelled', 60_000, async () =>
    expect(await host(['--tool', 'slow_compute', '--args', '{"seconds":30}', '--cancel-after-ms', '700']), {
      outcome: 'cancelled',
      status: 'cancelled',
      violations: 0,
    }),
  );
  await scenario('plain result, no task', 60_000, async () =>
    expect(await host(['--tool', 'greet', '--args', '{"name":"Bo"}']), {
      outcome: 'succeeded',
      status: null,
      text: 'Hello, Bo!',
    }),
  );
  await scenario('failed task hands over the JSON-RPC error', 60_000, async () => {
    const got = await host(['--tool', 'protocol_error_job']);
    if (got.outcome !== 'protocol_failure' || got.status !== 'failed' || typeof got.error?.code !== 'number')
      throw new Error(JSON.stringify(got));
    return `${got.outcome} (${got.error.code}) at ${got.ms} ms`;
  });
  // The 2025 tasks: inputs are the server's own requests on the tasks/result stream (I-10).
  const on2025 = (...args) => host(['--revision', '2025', ...args]);
  const yes = '{"action":"accept","content":{"confirm":true}}';
  await scenario('2025: an input asked on the tasks/result stream, answered by reply', 60_000, async () =>
    expect(await on2025('--tool', 'confirm_delete', '--args', '{"filename":"a.txt"}', '--answer', yes), {
      outcome: 'succeeded',
      status: 'completed',
      text: 'Deleted a.txt',
      violations: 0,
    }),
  );
  await scenario('2025: two inputs on one stream, both answered', 60_000, async () =>
    expect(await on2025('--tool', 'multi_input', '--answer', '{"action":"accept","content":{"name":"Ada"}}'), {
      outcome: 'succeeded',
      text: 'got first=Ada second=Ada',
      violations: 0,
    }),
  );
  await scenario('2025: a decline is what the tool reads', 60_000, async () =>
    expect(
      await on2025('--tool', 'confirm_delete', '--args', '{"filename":"b.txt"}', '--answer', '{"action":"decline"}'),
      {
        outcome: 'succeeded',
        text: 'Kept b.txt (action=decline)',
        violations: 0,
      },
    ),
  );
  await scenario('2025: cancel pressed while working ends cancelled', 60_000, async () =>
    expect(await on2025('--tool', 'slow_compute', '--args', '{"seconds":30}', '--cancel-after-ms', '700'), {
      outcome: 'cancelled',
      status: 'cancelled',
      violations: 0,
    }),
  );
  await scenario('settle latency after a 2000 ms task (measured, not asserted)', 60_000, async () => {
    const got = await host(['--tool', 'slow_compute', '--args', '{"seconds":2}']);
    if (got.outcome !== 'succeeded') throw new Error(JSON.stringify(got));
    return `settled at ${got.ms} ms, ${got.ms - 2000} ms after the work ended`;
  });
} finally {
  await server.stop();
}
process.exit(failures() ? 1 : 0);
