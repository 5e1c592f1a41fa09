// Trackers are registered for garbage collection lazily (scripts/lazy-finalization.mjs): those
// freed by the code that made them never are, and those never freed must still be reclaimed.
// Both are checked by the module memory staying bounded over rounds of many trackers, in a child
// process with `--expose-gc` (no timing: a leak grows the memory by megabytes per round).
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';

const CHILD = `
import { Tracker, wasmMemory } from 'longcall';
const rounds = [];
const turn = () => new Promise((r) => setTimeout(r, 0));
for (let round = 0; round < 12; round++) {
  for (let i = 0; i < 5000; i++) {
    const t = new Tracker('task-2026', { poll: { jitter: 'none' }, seed: 1 });
    t.fastCreated('t-1', 0, 0, 2000);
    if (process.argv[2] === 'free') t.free();
  }
  await turn();
  globalThis.gc();
  await turn();
  await turn();
  rounds.push(wasmMemory().buffer.byteLength);
}
console.log(JSON.stringify(rounds));
`;

function memory(mode) {
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-', mode], {
    input: CHILD,
    cwd: new URL('..', import.meta.url),
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

for (const mode of ['free', 'never freed']) {
  test(`trackers ${mode}: the module memory stays bounded`, () => {
    const rounds = memory(mode);
    // 5,000 trackers that leaked would add several MB a round; reclaimed ones are reused.
    assert.ok(rounds[11] <= rounds[3] + (1 << 20), `memory grew: ${rounds.join(' ')}`);
  });
}
