// The package's surface is consistent: every wasm export is in api.js, every api.js export is
// typed in index.d.ts (and nothing more), the exports map lists "types" first, both entries
// re-export api.js, and every file the package ships exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as lc from 'longcall';
import { PKG } from './support/paths.mjs';

const read = (p) => readFileSync(join(PKG, p), 'utf8');
const pkg = JSON.parse(read('package.json'));

test('every wasm-bindgen export is public in api.js', async () => {
  const glue = await import(pathToFileURL(join(PKG, 'dist/longcall.js')).href);
  const wasmFns = Object.keys(glue).filter((k) => k !== 'default' && k !== 'initSync');
  const missing = wasmFns.filter((k) => !(k in lc));
  assert.deepEqual(missing, [], 'add these to pkg/api.js and pkg/index.d.ts');
});

// Names a d.ts declares as values: its own declarations and its value re-exports.
function declaredValues(dts) {
  const declared = [...dts.matchAll(/^export (?:declare )?(?:function|const|class) (\w+)/gm)].map((m) => m[1]);
  const reexported = [...dts.matchAll(/^export \{([^}]*)\} from/gm)].flatMap((m) =>
    m[1]
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  return [...new Set([...declared, ...reexported])].sort();
}

test('index.d.ts declares exactly the runtime exports, without any', () => {
  const dts = read('index.d.ts');
  assert.deepEqual(declaredValues(dts), Object.keys(lc).sort());
  assert.doesNotMatch(
    dts.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
    /:\s*any\b|<any>|\bany\[\]/,
    'public types are literal unions, not any',
  );
});

test('exports map: types first, node and browser entries, files exist', () => {
  const dot = pkg.exports['.'];
  assert.equal(Object.keys(dot)[0], 'types');
  assert.equal(dot.node, './node.js');
  assert.equal(dot.browser, './web.js');
  assert.equal(dot.default, './web.js');
  for (const f of pkg.files) assert.ok(existsSync(join(PKG, f)), `${f} (listed in "files") is missing`);
  for (const entry of ['node.js', 'web.js']) assert.match(read(entry), /^export \* from '\.\/api\.js';$/m, entry);
});

for (const [sub, glueFile, api, dtsFile] of [
  ['lite', 'dist/longcall_lite.js', 'lite.js', 'lite.d.ts'],
  ['server', 'dist/longcall_server.js', 'server.js', 'server.d.ts'],
  ['vectors', 'dist/longcall_vectors.js', 'vectors.js', 'vectors.d.ts'],
]) {
  test(`longcall/${sub}: every glue export is public in ${api}, ${dtsFile} declares exactly them`, async () => {
    const mod = await import(`longcall/${sub}`);
    const glue = await import(pathToFileURL(join(PKG, glueFile)).href);
    const wasmFns = Object.keys(glue).filter((k) => k !== 'default' && k !== 'initSync');
    assert.deepEqual(
      wasmFns.filter((k) => !(k in mod)),
      [],
      `add these to pkg/${api} and pkg/${dtsFile}`,
    );
    const dts = read(dtsFile);
    assert.deepEqual(declaredValues(dts), Object.keys(mod).sort());
    assert.doesNotMatch(
      dts.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
      /:\s*any\b|<any>|\bany\[\]/,
      'public types are literal unions, not any',
    );
    const entry = pkg.exports[`./${sub}`];
    assert.equal(Object.keys(entry)[0], 'types');
    for (const f of [`${sub}-node.js`, `${sub}-web.js`])
      assert.match(read(f), new RegExp(`^export \\* from '\\./${sub}\\.js';$`, 'm'), f);
  });
}
