#!/usr/bin/env node
// Leg: longcall/mcp's SDK senders (sdkSender over SDK 1.32.2, sdk2Sender over
// @modelcontextprotocol/client 2.4.0) against the reference server
// @modelcontextprotocol/server-everything 2026.8.31 (stdio; its HTTP entry binds every interface,
// so it is not used), 2025-11-25 tasks: `simulate-research-query` plain, ambiguous (input asked
// through an elicitation inside tasks/result, answered by onInput) and cancelled, and `echo` as
// tools/list lists it (taskSupport forbidden: called without a task, rule E-64). Transcripts
// (results/everything-<line>.jsonl, through lib/stdio-recorder.mjs) go through `longcall check`
// and the audit for cancels of answered requests. Leg protocol: see lib/leg.mjs.
import path from 'node:path';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as Stdio1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as types1 from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2 } from '@modelcontextprotocol/client/stdio';
import { callTool, sdkSender, sdk2Sender } from '../../../pkg/mcp/index.js';
import { INTEROP_DIR } from '../lib/fixture.mjs';
import { makeLeg, checkTranscripts, summarize, RESULTS, sleep } from '../lib/leg.mjs';
import { lateCancels } from '../lib/cancel-audit.mjs';

const LEG = 'everything';
const { emit, log, scenario, failures } = makeLeg(LEG);
const CONFIG = { poll: { initialMs: 200, minIntervalMs: 100, capMs: 2000, jitter: 'full' }, seed: 11 };
const hardStop = setTimeout(() => {
  log('hard timeout');
  process.exit(3);
}, 200000);
hardStop.unref();
const SERVER = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

const LINES = [
  { line: '1.x', Client: Client1, Stdio: Stdio1, sender: (c) => sdkSender(c, { types: types1 }) },
  { line: '2.x', Client: Client2, Stdio: Stdio2, sender: (c) => sdk2Sender(c) },
];

const transcripts = [];
fs.mkdirSync(RESULTS, { recursive: true });
for (const L of LINES) {
  const sc = (name, ms, fn) => scenario(`${L.line}: ${name}`, ms, fn);
  const file = path.join(RESULTS, `everything-${L.line}.jsonl`);
  const transport = new L.Stdio({
    command: process.execPath,
    args: [path.join(INTEROP_DIR, 'lib', 'stdio-recorder.mjs'), '--out', file, '--', process.execPath, SERVER, 'stdio'],
    cwd: INTEROP_DIR,
    stderr: 'ignore', // the server's own chatter (and its worker's errors after a cancel)
  });
  const client = new L.Client(
    { name: 'longcall-interop', version: '0.1.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  let pid = null;
  try {
    await client.connect(transport);
    pid = transport.pid;
    log(`${L.line}: connected (recorder pid ${pid})`);
    const sender = L.sender(client);

    await sc('simulate-research-query: completed, report fetched', 30000, async () => {
      const h = await callTool(sender, {
        name: 'simulate-research-query',
        arguments: { topic: 'python' },
        config: CONFIG,
      });
      const out = await h.outcome;
      assert(out.outcome === 'succeeded' && out.status === 'completed', `outcome ${out.outcome}/${out.status}`);
      const text = out.result?.content?.[0]?.text ?? '';
      assert(text.startsWith('# Research Report: python'), `report ${text.slice(0, 80)}`);
      return `report ${text.length} chars, poll interval ${out.record.pollIntervalMs} ms`;
    });

    await sc('ambiguous: input asked once inside tasks/result, the answer used', 30000, async () => {
      const asked = [];
      const h = await callTool(sender, {
        name: 'simulate-research-query',
        arguments: { topic: 'python', ambiguous: true },
        config: CONFIG,
        onInput: async (key, request) => {
          asked.push(key);
          void request;
          return { action: 'accept', content: { interpretation: 'snake' } };
        },
      });
      const out = await h.outcome;
      assert(out.outcome === 'succeeded', `outcome ${out.outcome}`);
      assert(asked.length === 1, `asked ${asked.length} times`);
      const text = out.result?.content?.[0]?.text ?? '';
      assert(text.includes('python (snake)'), `report ${text.slice(0, 80)}`);
      return `asked once (${asked[0]}), report for "python (snake)"`;
    });

    await sc('echo as tools/list lists it: no taskSupport, so a plain call (E-64)', 30000, async () => {
      const { tools } = await client.listTools();
      const echo = tools.find((t) => t.name === 'echo');
      assert(echo, `no echo among ${tools.map((t) => t.name).join(', ')}`);
      const said = echo.execution?.taskSupport ?? 'nothing';
      const h = await callTool(sender, { tool: echo, arguments: { message: 'hi' }, config: CONFIG });
      const out = await h.outcome;
      assert(out.outcome === 'succeeded' && out.status === null, `outcome ${out.outcome}/${out.status}`);
      const text = out.result?.content?.[0]?.text ?? '';
      assert(text.includes('hi'), `result ${text.slice(0, 80)}`);
      return `taskSupport ${said}; settled at once: "${text.slice(0, 40)}"`;
    });

    await sc('cancel while working: cancelled', 30000, async () => {
      const buttons = [];
      const h = await callTool(sender, {
        name: 'simulate-research-query',
        arguments: { topic: 'rust' },
        config: CONFIG,
        onButton: (b) => buttons.push(b),
      });
      await sleep(1200);
      const state = await h.cancel();
      const out = await h.outcome;
      assert(out.outcome === 'cancelled' && out.status === 'cancelled', `outcome ${out.outcome}/${out.status}`);
      return `button ${state}; ${buttons.join(' > ')}`;
    });
  } catch (e) {
    emit(`${L.line}: connect`, 'fail', e?.message ?? e);
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

const present = transcripts.filter((f) => fs.existsSync(f));
for (const f of present) {
  const late = lateCancels(f);
  emit(
    `no cancel of an answered request: ${path.basename(f)}`,
    late.length ? 'fail' : 'pass',
    late.length ? `notifications/cancelled for answered ids ${late.map((x) => x.requestId).join(', ')}` : 'none',
  );
}
try {
  for (const r of checkTranscripts(present)) {
    const detail = `${r.file} (${r.model}): MUST ${r.must.length}${r.must.length ? ` [${summarize(r.must)}]` : ''}, SHOULD ${r.should.length}${r.should.length ? ` [${summarize(r.should)}]` : ''}`;
    emit(`transcript ${path.basename(r.file)}`, r.must.length ? 'fail' : 'pass', detail);
  }
} catch (e) {
  emit('transcripts: longcall check', 'fail', e?.message ?? e);
}
process.exit(failures() ? 1 : 0);
