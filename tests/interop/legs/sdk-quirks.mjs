#!/usr/bin/env node
// Leg: longcall/mcp's SDK senders (sdkSender over SDK 1.32.2, sdk2Sender over
// @modelcontextprotocol/client 2.4.0) against fixtures/sdk2025-quirks-server.mjs (SDK 1.32.2
// server, stdio): behaviours of servers the adapter had not met. A task whose tasks/get omits
// `ttl` settles (the core reads it and reports the missing field) instead of polling forever; the
// host's own elicitation handler still answers ordinary elicitations; a Client that declared no
// elicitation can use the sender, and an `onInput` given with it is refused at once, as it is once
// a handler registered after the sender replaced the sender's own; the sender
// of the other SDK line, given this line's Client, says which sender fits; a Client closed
// mid-watch stops the watch; no `notifications/cancelled` names an answered request
// (recorded transcript, results/sdk-quirks-<line>.jsonl). Leg protocol: see lib/leg.mjs.
import path from 'node:path';
import fs from 'node:fs';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as Stdio1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as types1 from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2 } from '@modelcontextprotocol/client/stdio';
import { callTool, sdkSender, sdk2Sender } from '../../../pkg/mcp/index.js';
import { INTEROP_DIR } from '../lib/fixture.mjs';
import { makeLeg, RESULTS, sleep } from '../lib/leg.mjs';
import { lateCancels } from '../lib/cancel-audit.mjs';

const LEG = 'sdk-quirks';
const { emit, log, scenario, failures } = makeLeg(LEG);
const CONFIG = { poll: { initialMs: 100, minIntervalMs: 50, capMs: 1000, jitter: 'full' }, seed: 7 };
const hardStop = setTimeout(() => {
  log('hard timeout');
  process.exit(3);
}, 120000);
hardStop.unref();

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** A call given an `onInput` the sender cannot serve: its refusal (null if it went through). */
const onInputRefusal = (sender) =>
  callTool(sender, {
    name: 'quick_task',
    arguments: { ms: 200 },
    config: CONFIG,
    onInput: () => ({ action: 'accept', content: {} }),
  }).then(
    () => null,
    (err) => err,
  );

const LINES = [
  {
    line: '1.x',
    Client: Client1,
    Stdio: Stdio1,
    sender: (c) => sdkSender(c, { types: types1 }),
    otherSender: (c) => sdk2Sender(c),
    fits: /use sdkSender/,
    hostHandler: (c, fn) => c.setRequestHandler(types1.ElicitRequestSchema, fn),
  },
  {
    line: '2.x',
    Client: Client2,
    Stdio: Stdio2,
    sender: (c) => sdk2Sender(c),
    otherSender: (c) => sdkSender(c, { types: types1 }),
    fits: /use sdk2Sender/,
    hostHandler: (c, fn) => c.setRequestHandler('elicitation/create', fn),
  },
];

async function connect(L, file, capabilities) {
  const transport = new L.Stdio({
    command: process.execPath,
    args: [
      path.join(INTEROP_DIR, 'lib', 'stdio-recorder.mjs'),
      '--out',
      file,
      '--',
      process.execPath,
      path.join(INTEROP_DIR, 'fixtures', 'sdk2025-quirks-server.mjs'),
      '--max-lifetime-ms',
      '110000',
    ],
    cwd: INTEROP_DIR,
    stderr: 'inherit',
  });
  const client = new L.Client({ name: 'longcall-interop', version: '0.1.0' }, { capabilities });
  await client.connect(transport);
  return {
    client,
    async close() {
      const pid = transport.pid;
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
    },
  };
}

fs.mkdirSync(RESULTS, { recursive: true });
for (const L of LINES) {
  const sc = (name, ms, fn) => scenario(`${L.line}: ${name}`, ms, fn);
  const file = path.join(RESULTS, `sdk-quirks-${L.line}.jsonl`);
  let conn = null;
  try {
    conn = await connect(L, file, { elicitation: { form: {} } });
    const hostSaw = [];
    // The host's own handler, registered before the sender is made.
    L.hostHandler(conn.client, async (request) => {
      hostSaw.push(request.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    await sc("the other SDK line's sender, given this Client, names the one that fits", 5000, async () => {
      let e = null;
      try {
        L.otherSender(conn.client);
      } catch (err) {
        e = err;
      }
      assert(e?.code === 'invalid_input' && L.fits.test(e.message), `${e?.code}: ${e?.message}`);
      return e.message;
    });
    const sender = L.sender(conn.client);

    await sc('a settled task, then the caller aborts its signal: nothing is cancelled', 15000, async () => {
      const ac = new AbortController();
      const h = await callTool(sender, {
        name: 'quick_task',
        arguments: { ms: 300 },
        config: CONFIG,
        signal: ac.signal,
      });
      const out = await h.outcome;
      assert(out.outcome === 'succeeded', `outcome ${out.outcome}`);
      ac.abort();
      await sleep(200); // a cancel, if any, is on the wire by now (audited in the transcript below)
      return 'succeeded';
    });

    await sc('a task whose tasks/get omits ttl settles, the missing field reported', 15000, async () => {
      const violations = [];
      const h = await callTool(sender, {
        name: 'no_ttl_task',
        arguments: { ms: 300 },
        config: CONFIG,
        onViolation: (v) => violations.push(v),
      });
      const out = await h.outcome;
      assert(out.outcome === 'succeeded' && out.status === 'completed', `outcome ${out.outcome}/${out.status}`);
      const missing = violations.filter((v) => v.source === 'wire' && v.rule === 'missing_field');
      assert(missing.length > 0, `violations ${JSON.stringify(violations)}`);
      return `succeeded; ${missing.length} missing_field (${missing[0].detail})`;
    });

    await sc("an ordinary elicitation reaches the host's own handler", 15000, async () => {
      const r = await conn.client.callTool({ name: 'plain_elicit', arguments: {} });
      const text = r.content?.[0]?.text ?? '';
      assert(hostSaw.includes('plain question'), `host handler saw ${JSON.stringify(hostSaw)}`);
      assert(text.includes('"action":"accept"') && text.includes('"ok":true'), `tool said ${text}`);
      return text;
    });

    await sc(
      "a handler registered after the sender replaces the sender's own: an onInput is refused",
      5000,
      async () => {
        L.hostHandler(conn.client, async () => ({ action: 'decline' }));
        const e = await onInputRefusal(sender);
        assert(
          e?.code === 'invalid_input' && /registered after the sender/.test(e.message),
          `${e?.code}: ${e?.message}`,
        );
        return e.message;
      },
    );

    await sc('the Client closed mid-watch: the watch stops, saying so, instead of polling on', 20000, async () => {
      const h = await callTool(sender, { name: 'quick_task', arguments: { ms: 4000 }, config: CONFIG });
      await sleep(600); // a poll or two
      await conn.client.close();
      const t0 = Date.now();
      const e = await h.outcome.then(
        (out) => ({ code: `settled ${out.outcome}` }),
        (err) => err,
      );
      assert(e.code === 'watch_stopped' && /client is closed/.test(e.message), `${e.code}: ${e.message}`);
      return `${e.code} ${Date.now() - t0} ms after the close: ${e.message}`;
    });
  } catch (e) {
    emit(`${L.line}: connect`, 'fail', e?.message ?? e);
  } finally {
    await conn?.close();
  }
  if (fs.existsSync(file)) {
    const late = lateCancels(file);
    emit(
      `${L.line}: no cancel of an answered request`,
      late.length ? 'fail' : 'pass',
      late.length ? `notifications/cancelled for answered ids ${late.map((x) => x.requestId).join(', ')}` : 'none',
    );
  }

  // A Client that declared no elicitation: the sender is made and a task completes.
  const bare = path.join(RESULTS, `sdk-quirks-${L.line}-no-elicitation.jsonl`);
  let c2 = null;
  try {
    c2 = await connect(L, bare, {});
    await sc('a Client without elicitation: sender made, task completes', 15000, async () => {
      const sender = L.sender(c2.client);
      assert(sender.routeInput === undefined, 'routeInput offered without an input channel');
      const out = await (await callTool(sender, { name: 'quick_task', arguments: { ms: 200 }, config: CONFIG }))
        .outcome;
      assert(out.outcome === 'succeeded', `outcome ${out.outcome}`);
      return 'succeeded';
    });
    await sc('a Client without elicitation: an onInput is refused before anything is sent', 5000, async () => {
      const e = await onInputRefusal(L.sender(c2.client));
      assert(e?.code === 'invalid_input' && /elicitation/.test(e.message), `${e?.code}: ${e?.message}`);
      return e.message;
    });
  } catch (e) {
    emit(`${L.line}: connect (no elicitation)`, 'fail', e?.message ?? e);
  } finally {
    await c2?.close();
  }
}
process.exit(failures() ? 1 : 0);
