// index.d.ts compiles under strict TypeScript (nodenext resolution through the exports map), and a
// consumer gets literal unions: test/types/consumer.ts uses @ts-expect-error for what must not compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PKG } from './support/paths.mjs';

// With the DOM library (a page), without it (a Node project: ES library and @types/node only),
// where the WebAssembly types must still resolve, and with exactOptionalPropertyTypes, where
// options built from possibly-undefined values must still pass.
for (const config of ['tsconfig.json', 'tsconfig.node.json', 'tsconfig.strictest.json']) {
  test(`index.d.ts type-checks a consumer (tsc --noEmit --strict, ${config})`, () => {
    const tsc = join(PKG, 'node_modules/.bin/tsc');
    const r = spawnSync(tsc, ['-p', join(PKG, 'test/types', config)], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  });
}
