// index.d.ts compiles under strict TypeScript (nodenext resolution through the exports map), and a
// consumer gets literal unions: test/types/consumer.ts uses @ts-expect-error for what must not compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

// A settled result and an input request are printed as `Json` (in hovers, in emitted
// declarations), not as the ten-level expansion of it that mapping their keys to camelCase gave.
test('JSON the caller owns is printed as Json, not expanded', () => {
  const out = mkdtempSync(join(tmpdir(), 'longcall-printed-'));
  try {
    const tsc = join(PKG, 'node_modules/.bin/tsc');
    const args = ['--strict', '--module', 'nodenext', '--target', 'es2022', '--declaration', '--emitDeclarationOnly'];
    const r = spawnSync(tsc, [...args, '--rootDir', PKG, '--outDir', out, join(PKG, 'test/types/printed.ts')], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    const printed = readFileSync(join(out, 'test/types/printed.d.ts'), 'utf8');
    assert.match(printed, /resultOf\([^)]*\): import\("longcall"\)\.Json \| undefined;/s);
    assert.match(printed, /requestOf\([^)]*\): import\("longcall"\)\.Json;/s);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
