// index.d.ts compiles under strict TypeScript (nodenext resolution through the exports map), and a
// consumer gets literal unions: test/types/consumer.ts uses @ts-expect-error for what must not compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PKG } from './support/paths.mjs';

test('index.d.ts type-checks a consumer (tsc --noEmit --strict)', () => {
  const tsc = join(PKG, 'node_modules/.bin/tsc');
  const r = spawnSync(tsc, ['-p', join(PKG, 'test/types/tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});
