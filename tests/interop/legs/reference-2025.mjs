#!/usr/bin/env node
// Leg: the package's reference tasks server (pkg/examples/mcp-tasks-server.mjs --serve-2025, its
// own process, as the README starts it) with the official SDK clients on the 2025-11-25 wire:
// SDK 1.32.2's `Client` through `sdkSender`, and `@modelcontextprotocol/client` 2.4.0's through
// `sdk2Sender`, each connected as its README shows (no extra header). A task that asks for input
// (`confirm_delete`) asks once, through `onInput`, from inside `tasks/result`, and completes; a
// plain task (`slow_compute`) completes; neither reports a broken wire rule. Leg protocol: see
// lib/leg.mjs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Http1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as types1 from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2, StreamableHTTPClientTransport as Http2 } from '@modelcontextprotocol/client';
import { callTool, sdkSender, sdk2Sender } from '../../../pkg/mcp/index.js';
import { makeLeg, REPO } from '../lib/leg.mjs';

const { emit, log, scenario, failures } = makeLeg('reference-2025');
const CONFIG = { poll: { initialMs: 100, minIntervalMs: 50, capMs: 1000, jitter: 'full' }, seed: 7 };
const hardStop = setTimeout(() => {
  log('hard timeout');
  process.exit(3);
}, 90000);
hardStop.unref();

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** Starts the reference server; resolves to its URL and a stop function. */
function startServer() {
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'pkg/examples/mcp-tasks-server.mjs'), '--serve-2025', '--max-lifetime-ms', '85000'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('LISTENING ')) resolve(line.slice('LISTENING '.length));
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

const LINES = [
  { line: '1.x', Client: Client1, Http: Http1, sender: (c) => sdkSender(c, { types: types1 }) },
  { line: '2.x', Client: Client2, Http: Http2, sender: (c) => sdk2Sender(c) },
];

const server = startServer();
try {
  const url = await server.url;
  for (const L of LINES) {
    const client = new L.Client({ name: 'longcall-interop', version: '0.1.0' }, { capabilities: { elicitation: {} } });
    try {
      await scenario(`${L.line}: connect as the SDK's README does`, 10000, async () => {
        await client.connect(new L.Http(new URL(url)));
        return client.getServerVersion()?.name ?? '';
      });
      const sender = L.sender(client);
      await scenario(`${L.line}: confirm_delete asks once inside tasks/result, then completes`, 20000, async () => {
        const asked = [];
        const violations = [];
        const h = await callTool(sender, {
          name: 'confirm_delete',
          arguments: { filename: 'old.txt' },
          config: CONFIG,
          onInput: async (key, request, info) => {
            asked.push({ key, request, info });
            return { action: 'accept', content: { confirm: true } };
          },
          onViolation: (v) => violations.push(v),
        });
        const out = await h.outcome;
        assert(out.outcome === 'succeeded', `outcome ${out.outcome}`);
        assert(JSON.stringify(out.result).includes('Deleted old.txt'), JSON.stringify(out.result));
        assert(asked.length === 1, `asked ${asked.length} times`);
        assert(asked[0].request?.method === 'elicitation/create', JSON.stringify(asked[0].request));
        assert(violations.length === 0, JSON.stringify(violations));
        return `${out.outcome}, asked once`;
      });
      await scenario(`${L.line}: slow_compute completes with no broken wire rule`, 15000, async () => {
        const violations = [];
        const h = await callTool(sender, {
          name: 'slow_compute',
          arguments: { seconds: 0.3 },
          config: CONFIG,
          onViolation: (v) => violations.push(v),
        });
        const out = await h.outcome;
        assert(out.outcome === 'succeeded', `outcome ${out.outcome}`);
        assert(violations.length === 0 && out.record.wireViolations.length === 0, JSON.stringify(violations));
        return out.outcome;
      });
    } catch (e) {
      emit(`${L.line}: run`, 'fail', e?.message ?? e);
    } finally {
      await client.close().catch(() => {});
    }
  }
} catch (e) {
  emit('start the reference server', 'fail', e?.message ?? e);
} finally {
  server.stop();
}
process.exit(failures() ? 1 : 0);
