// The shared cases (test/shared/*.cases.mjs) in Node, through the package's "node" entry
// (a self-reference: `longcall` resolves through package.json's exports map).
import { describe, test } from 'node:test';
import * as lc from 'longcall';
import { assert } from './shared/assert.mjs';
import { loadCaseFiles, readText } from './support/cases.mjs';

for (const { file, cases } of await loadCaseFiles()) {
  describe(`node ${file}`, () => {
    for (const [name, fn] of Object.entries(cases)) {
      test(name, () => fn({ lc, assert, host: 'node', readText }));
    }
  });
}
