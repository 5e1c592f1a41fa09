#!/usr/bin/env node
// Leg: longcall/mcp (httpSender, 2026-07-28 tasks extension) against fixtures/fastmcp_tasks_server.py
// (fastmcp-tasks 4.1.4). Every exchange goes through lib/http-recorder.mjs into
// results/fastmcp.jsonl, then `longcall check`. Leg protocol: see lib/leg.mjs.
import path from 'node:path';
import fs from 'node:fs';
import { callTool, watchTask, httpSender } from '../../../pkg/mcp/index.js';
import { startFixture, fastmcpHttp, VENV_PYTHON } from '../lib/fixture.mjs';
import { startHttpRecorder } from '../lib/http-recorder.mjs';
import {
  makeLeg,
  checkTranscripts,
  summarize,
  RESULTS,
  sleep,
  settledAfterTerminal,
  exchangeAnswer,
} from '../lib/leg.mjs';

const LEG = 'fastmcp';
const { emit, log, scenario, failures } = makeLeg(LEG);
const CONFIG = { poll: { initialMs: 50, minIntervalMs: 50, capMs: 1000, jitter: 'full' }, seed: 11 };
const hardStop = setTimeout(() => {
  log('hard timeout');
  process.exit(3);
}, 150000);
hardStop.unref();
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

if (!fs.existsSync(VENV_PYTHON)) {
  emit('fixture', 'skip', `no ${VENV_PYTHON}: run tests/interop/install.sh (INTEROP_SKIP_PY unset)`);
  process.exit(0);
}

const file = path.join(RESULTS, 'fastmcp.jsonl');
let fixture = null,
  rec = null;
try {
  fixture = await startFixture(fastmcpHttp(['--max-lifetime-s', '170']), { timeoutMs: 40000 });
  rec = await startHttpRecorder({ upstream: fixture.url, file });
  log(`fixture pid ${fixture.pid} at ${fixture.url}, recorder ${rec.url}`);
  const sender = httpSender({ url: rec.url, clientInfo: { name: 'longcall-interop', version: '0.1.0' } });

  await scenario('flat CreateTaskResult, pollIntervalMs honoured, completed', 20000, async () => {
    const ex = [];
    const h = await callTool(sender, {
      name: 'slow_compute',
      arguments: { seconds: 1, label: 'leg' },
      config: CONFIG,
      onExchange: (e) => ex.push(e),
    });
    // The answer as it arrived (the adapter hands the HTTP answer to the core's endpoint untouched).
    const created = exchangeAnswer(ex[0])?.result;
    assert(created?.resultType === 'task', `tools/call gave ${JSON.stringify(ex[0])}`);
    const floor = created.pollIntervalMs;
    assert(Number.isInteger(floor) && floor > 0, `pollIntervalMs ${floor}`);
    const createLine = rec.transcript.lines.find((l) => l.dir === 's2c' && l.msg?.result?.resultType === 'task');
    assert(
      createLine && createLine.msg.result.task === undefined && createLine.msg.result.taskId === h.id,
      'CreateTaskResult not flat',
    );
    const out = await h.outcome;
    const late = settledAfterTerminal(ex, Date.now());
    assert(out.outcome === 'succeeded' && out.status === 'completed', `outcome ${out.outcome}/${out.status}`);
    const gaps = [];
    let last = null;
    for (const e of ex) {
      if (e.method === 'tasks/get' && last !== null) gaps.push(e.sentAt - last);
      if (e.method === 'tools/call' || e.method === 'tasks/get') last = e.answeredAt;
    }
    assert(gaps.length >= 2 && gaps.every((g) => g >= floor), `gaps ${gaps} vs pollIntervalMs ${floor}`);
    return `pollIntervalMs ${floor}, ${gaps.length} polls, min gap ${Math.min(...gaps)} ms, settled ${late} ms after the terminal status`;
  });

  await scenario('input_required -> tasks/update -> completed', 20000, async () => {
    const asked = [];
    const h = await callTool(sender, {
      name: 'staged_confirm',
      arguments: { work_seconds: 0.3 },
      config: CONFIG,
      onInput: async (key, _request) => {
        asked.push(key);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    const out = await h.outcome;
    assert(out.outcome === 'succeeded', `outcome ${out.outcome}`);
    assert(
      asked.length === 1 && asked[0].startsWith(`${h.id}:`),
      `asked ${JSON.stringify(asked)} (server-minted keys are "<taskId>:<hex>")`,
    );
    assert(
      /staged_confirm finished \(action=accept, confirm=True\)/.test(out.result?.content?.[0]?.text ?? ''),
      `result ${JSON.stringify(out.result)}`,
    );
    const updates = rec.transcript.lines.filter((l) => l.dir === 'c2s' && l.msg?.method === 'tasks/update');
    assert(
      updates.length === 1 && updates[0].http.mcpName === h.id && updates[0].http.mcpMethod === 'tasks/update',
      'tasks/update headers',
    );
    return `asked once (${asked[0]}), one tasks/update with Mcp-Name = taskId`;
  });

  await scenario('cancel while working: ack, then cancelled', 20000, async () => {
    const buttons = [];
    const h = await callTool(sender, {
      name: 'slow_compute',
      arguments: { seconds: 20, label: 'cancel' },
      config: CONFIG,
      onButton: (b) => buttons.push(b),
    });
    await sleep(200);
    const state = await h.cancel();
    const out = await h.outcome;
    assert(out.outcome === 'cancelled', `outcome ${out.outcome}`);
    return `button after ack ${state}; ${buttons.join(' > ')}`;
  });

  await scenario('unknown id: -32602, lost', 10000, async () => {
    const out = await watchTask(sender, 'no-such-task-0000', { config: CONFIG }).outcome;
    assert(out.outcome === 'lost', `outcome ${out.outcome}`);
    const line = rec.transcript.lines.filter((l) => l.dir === 's2c' && l.msg?.error).at(-1);
    assert(line?.msg.error.code === -32602, `error ${JSON.stringify(line?.msg)}`);
    return `HTTP ${line.http.status} -32602 -> lost`;
  });

  await scenario('without the capability: -32021', 10000, async () => {
    const bare = httpSender({ url: rec.url, declareTasks: false });
    const out = await (await callTool(bare, { name: 'failing_job' })).outcome;
    assert(
      out.outcome === 'protocol_failure' && out.error?.code === -32021,
      `outcome ${out.outcome} ${JSON.stringify(out.error)}`,
    );
    const named = out.error?.data?.requiredCapabilities?.extensions?.['io.modelcontextprotocol/tasks'];
    assert(named !== undefined, 'data.requiredCapabilities does not name the tasks extension');
    const line = rec.transcript.lines.filter((l) => l.dir === 's2c' && l.msg?.error?.code === -32021).at(-1);
    return `HTTP ${line?.http?.status} -32021 naming the tasks extension`;
  });
} catch (e) {
  emit('fixture', 'fail', e?.message ?? e);
} finally {
  await rec?.stop();
  const s = await fixture?.stop();
  if (s) log(`fixture stopped ${JSON.stringify(s)}`);
}

try {
  if (fs.existsSync(file)) {
    for (const r of checkTranscripts([file])) {
      const detail = `${r.file} (${r.model}): MUST ${r.must.length}${r.must.length ? ` [${summarize(r.must)}]` : ''}, SHOULD ${r.should.length}${r.should.length ? ` [${summarize(r.should)}]` : ''}`;
      emit(`transcript ${path.basename(r.file)}`, r.must.length ? 'fail' : 'pass', detail);
    }
  }
} catch (e) {
  emit('transcripts: longcall check', 'fail', e?.message ?? e);
}
process.exit(failures() ? 1 : 0);
