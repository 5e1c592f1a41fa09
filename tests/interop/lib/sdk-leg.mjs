// The scenarios of the SDK client legs (legs/sdk2025.mjs: the SDK 1.32.2 `Client` with
// `sdkSender`; legs/sdk2.mjs: the SDK 2.x `Client` with `sdk2Sender`), written once and run per
// client: longcall/mcp against fixtures/sdk2025-server.mjs (SDK 1.32.2 server, 2025-11-25
// experimental tasks), over stdio and over Streamable HTTP. Every exchange is recorded (stdio:
// lib/stdio-recorder.mjs as a tee; HTTP: lib/http-recorder.mjs as a proxy) into
// results/<leg>-<transport>.jsonl, checked with `longcall check` and for cancellations of
// requests already answered. Leg protocol: see lib/leg.mjs.
import path from 'node:path';
import fs from 'node:fs';
import { callTool, watchTask } from '../../../pkg/mcp/index.js';
import { startFixture, sdk2025Http, INTEROP_DIR } from './fixture.mjs';
import { startHttpRecorder } from './http-recorder.mjs';
import { makeLeg, checkTranscripts, summarize, RESULTS, sleep, settledAfterTerminal } from './leg.mjs';
import { lateCancels } from './cancel-audit.mjs';

const POLL = 250; // the fixture's pollInterval
const CONFIG = { poll: { initialMs: 100, minIntervalMs: 50, capMs: 1000, jitter: 'full' }, seed: 7 };

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** Runs a tool through the adapter, recording exchange times; returns {out, gets, buttons, handle}. */
async function run(sender, opts) {
  const exchanges = [];
  const buttons = [];
  const asked = [];
  const violations = [];
  const h = await callTool(sender, {
    config: CONFIG,
    onExchange: (e) => exchanges.push(e),
    onButton: (b) => buttons.push(b),
    onViolation: (v) => violations.push(v),
    onInput: async (key, request) => {
      asked.push({ key, request });
      return { action: 'accept', content: { confirm: true } };
    },
    ...opts,
  });
  return { h, exchanges, buttons, asked, violations };
}

function pollGaps(exchanges) {
  // tasks/get sent no sooner than pollInterval after the previous answer (create or poll).
  const gaps = [];
  let last = null;
  for (const e of exchanges) {
    if (e.method === 'tasks/get' && last !== null) gaps.push(e.sentAt - last);
    if (e.method === 'tools/call' || e.method === 'tasks/get') last = e.answeredAt;
  }
  return gaps;
}

async function scenarios({ scenario }, transport, sender) {
  const sc = (name, ms, fn) => scenario(`${transport}: ${name}`, ms, fn);

  await sc('create, poll at >= pollInterval, completed', 15000, async () => {
    const { h, exchanges } = await run(sender, {
      name: 'slow_steps',
      arguments: { steps: 3, stepMs: 200 },
      ttlMs: 60000,
    });
    assert(h.id, 'no task id');
    const out = await h.outcome;
    const late = settledAfterTerminal(exchanges, Date.now());
    assert(out.outcome === 'succeeded' && out.status === 'completed', `outcome ${out.outcome}/${out.status}`);
    assert(out.result?.content?.[0]?.text === 'slow_steps finished 3 steps', `result ${JSON.stringify(out.result)}`);
    const gaps = pollGaps(exchanges);
    assert(gaps.length >= 2, `only ${gaps.length} polls`);
    assert(
      gaps.every((g) => g >= POLL),
      `poll gaps ${gaps} (pollInterval ${POLL})`,
    );
    assert(out.record.pollIntervalMs === POLL, `record pollIntervalMs ${out.record.pollIntervalMs}`);
    return `polls ${gaps.length}, min gap ${Math.min(...gaps)} ms >= ${POLL}, settled ${late} ms after the terminal status`;
  });

  await sc('input_required: elicitation answered inside tasks/result, completed', 20000, async () => {
    const { h, asked, exchanges } = await run(sender, {
      name: 'slow_steps',
      arguments: { steps: 3, stepMs: 150, askInput: true },
    });
    const out = await h.outcome;
    assert(out.outcome === 'succeeded', `outcome ${out.outcome}`);
    assert(asked.length === 1 && asked[0].request.method === 'elicitation/create', `asked ${JSON.stringify(asked)}`);
    assert(
      exchanges.some((e) => e.method === 'tasks/result'),
      'no tasks/result',
    );
    assert(out.result?.content?.[0]?.text === 'slow_steps finished 3 steps', `result ${JSON.stringify(out.result)}`);
    return `asked once (${asked[0].key}), statuses via ${exchanges.filter((e) => e.method === 'tasks/get').length} polls`;
  });

  await sc('failed with an isError result: tool_error', 15000, async () => {
    const { h } = await run(sender, { name: 'failing_job' });
    const out = await h.outcome;
    assert(out.outcome === 'tool_error' && out.status === 'failed', `outcome ${out.outcome}/${out.status}`);
    assert(out.result?.isError === true, 'isError payload not fetched');
    return 'failed + tasks/result isError -> tool_error';
  });

  await sc('cancel while working: cancelled', 15000, async () => {
    const { h, buttons } = await run(sender, { name: 'cancellable', arguments: { maxMs: 8000 } });
    await sleep(300);
    const state = await h.cancel();
    const out = await h.outcome;
    assert(out.outcome === 'cancelled' && out.status === 'cancelled', `outcome ${out.outcome}/${out.status}`);
    assert(state === 'cancelled', `button after answer ${state}`);
    return `buttons ${buttons.join(' > ')}`;
  });

  await sc('cancel after completion: -32602 on this revision, button finished_first', 20000, async () => {
    // Poll slowly so the task completes on the server before the tracker sees it; then press.
    const slow = { poll: { initialMs: 2500, minIntervalMs: 2500, capMs: 5000, jitter: 'none' }, seed: 1 };
    // (failing_job, not tool_error_completed: that fixture tool stores completed + isError, which
    // `longcall check` reports as a SHOULD on the 2025 wire, where isError should map to failed.)
    const { h, buttons, exchanges } = await run(sender, { name: 'failing_job', config: slow });
    await sleep(900);
    const state = await h.cancel();
    const out = await h.outcome;
    const cancelAnswer = exchanges.find((e) => e.method === 'tasks/cancel');
    assert(cancelAnswer?.answer?.error?.code === -32602, `cancel answer ${JSON.stringify(cancelAnswer)}`);
    assert(['finished_first', 'not_applicable'].includes(state), `button ${state}`);
    assert(out.outcome === 'tool_error' && out.status === 'failed', `outcome ${out.outcome}/${out.status}`);
    // and once settled, the core refuses a press locally (no request on the wire)
    let refused = null;
    try {
      await h.cancel();
    } catch (e) {
      refused = e.code;
    }
    assert(refused === 'cancel_refused', `second press: ${refused}`);
    return `-32602 -> ${state}; buttons ${buttons.join(' > ')}; then cancel_refused`;
  });

  await sc('unknown id: lost', 10000, async () => {
    const h = watchTask(sender, 'no-such-task-0000', { config: CONFIG });
    const out = await h.outcome;
    assert(out.outcome === 'lost', `outcome ${out.outcome}`);
    return `-32602 on tasks/get -> lost, button ${out.record.cancel}`;
  });
}

/**
 * Runs the leg `leg` with one client line: `Client`, `StdioClientTransport` and
 * `StreamableHTTPClientTransport` from that SDK, and `sender(client)` the longcall/mcp sender
 * over it. Exits the process with the leg's status.
 */
export async function runSdkLeg({ leg, Client, StdioClientTransport, StreamableHTTPClientTransport, sender }) {
  const ctx = makeLeg(leg);
  const { emit, log, failures } = ctx;
  const hardStop = setTimeout(() => {
    log('hard timeout');
    process.exit(3);
  }, 150000);
  hardStop.unref();
  const transcripts = [];
  fs.mkdirSync(RESULTS, { recursive: true });

  // ---- stdio: the SDK client spawns the recorder tee, which spawns the fixture ----------------
  {
    const file = path.join(RESULTS, `${leg}-stdio.jsonl`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        path.join(INTEROP_DIR, 'lib', 'stdio-recorder.mjs'),
        '--out',
        file,
        '--',
        process.execPath,
        path.join(INTEROP_DIR, 'fixtures', 'sdk2025-server.mjs'),
        '--stdio',
        '--max-lifetime-ms',
        '170000',
      ],
      cwd: INTEROP_DIR,
      stderr: 'inherit',
    });
    const client = new Client(
      { name: 'longcall-interop', version: '0.1.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    let pid = null;
    try {
      await client.connect(transport);
      pid = transport.pid;
      log(`stdio: connected (recorder pid ${pid})`);
      await scenarios(ctx, 'stdio', sender(client));
    } catch (e) {
      emit('stdio: connect', 'fail', e?.message ?? e);
    } finally {
      await Promise.race([client.close().catch(() => {}), sleep(3000)]);
      if (pid) {
        try {
          process.kill(pid, 0);
          process.kill(pid, 'SIGTERM');
        } catch {
          /* gone */
        }
      }
      await sleep(200);
      transcripts.push(file);
    }
  }

  // ---- Streamable HTTP through the recording proxy ------------------------------------------
  {
    const file = path.join(RESULTS, `${leg}-http.jsonl`);
    let fixture = null,
      rec = null;
    const client = new Client(
      { name: 'longcall-interop', version: '0.1.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    try {
      fixture = await startFixture(sdk2025Http(['--max-lifetime-ms', '170000']));
      rec = await startHttpRecorder({ upstream: fixture.url, file });
      await client.connect(new StreamableHTTPClientTransport(new URL(rec.url)));
      log(`http: connected via ${rec.url} (fixture pid ${fixture.pid})`);
      await scenarios(ctx, 'http', sender(client));
    } catch (e) {
      emit('http: connect', 'fail', e?.message ?? e);
    } finally {
      await Promise.race([client.close().catch(() => {}), sleep(3000)]);
      await rec?.stop();
      const s = await fixture?.stop();
      if (s) log(`http fixture stopped ${JSON.stringify(s)}`);
      transcripts.push(file);
    }
  }

  // ---- transcripts through `longcall check` --------------------------------------------------
  try {
    for (const r of checkTranscripts(transcripts.filter((f) => fs.existsSync(f)))) {
      const detail = `${r.file} (${r.model}): MUST ${r.must.length}${r.must.length ? ` [${summarize(r.must)}]` : ''}, SHOULD ${r.should.length}${r.should.length ? ` [${summarize(r.should)}]` : ''}`;
      emit(`transcript ${path.basename(r.file)}`, r.must.length ? 'fail' : 'pass', detail);
    }
    for (const f of transcripts.filter((x) => fs.existsSync(x))) {
      const late = lateCancels(f);
      emit(
        `no cancel of an answered request: ${path.basename(f)}`,
        late.length ? 'fail' : 'pass',
        late.length ? `notifications/cancelled for answered ids ${late.map((x) => x.requestId).join(', ')}` : 'none',
      );
    }
  } catch (e) {
    emit('transcripts: longcall check', 'fail', e?.message ?? e);
  }
  process.exit(failures() ? 1 : 0);
}
