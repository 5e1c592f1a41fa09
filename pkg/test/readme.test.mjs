// Every JavaScript block of the README and of the pages it links (docs/*.md, shipped in the
// package) works as written: all of them type-check in strict TypeScript (checkJs, so a name the
// block never defines fails), and the ones that need no outside service run: the first example
// and the lite cancel button print what their comments say, the numbers-only path prints its
// outputs, and the run loop (`runTask`) drives real tasks on the reference MCP server
// (examples/mcp-tasks-server.mjs) on loopback to their outcomes, input round included. The
// README's quick starts are copies of the pages' first blocks: each must be one of them, verbatim.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PKG } from './support/paths.mjs';
import { createTasksServer } from '../examples/mcp-tasks-server.mjs';

// The README, then the pages (the rule book, copied in at pack time, has no code).
const DOCS = [
  'README.md',
  ...readdirSync(join(PKG, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'rules.md')
    .sort()
    .map((f) => `docs/${f}`),
];
/** [where, text] of every ```js block of `page`, `where` being `page:line`. */
const blocksOf = (page) => {
  const md = readFileSync(join(PKG, page), 'utf8');
  return [...md.matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => [
    `${page}:${md.slice(0, m.index).split('\n').length}`,
    m[1],
  ]);
};
const all = DOCS.flatMap(blocksOf);
// A block repeated verbatim (a README quick start, again on its page) is one example.
const blocks = all.filter(([, text], i) => all.findIndex(([, t]) => t === text) === i);
const named = (needle) => {
  const found = blocks.filter(([, text]) => text.includes(needle));
  assert.equal(found.length, 1, `one block of the README and its pages has ${needle}`);
  return found[0];
};

// Inside the package, so that `longcall` resolves to it by name, as in an app.
let dir;
const files = new Map();
before(() => {
  dir = mkdtempSync(join(PKG, 'test', '.readme-'));
  for (const [where, text] of blocks) {
    const file = join(dir, `${where.replace(/\W+/g, '-')}.mjs`);
    writeFileSync(file, text);
    files.set(text, file);
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

const node = (file) => spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });

test('the README and its pages have their blocks', () => {
  assert.ok(blocks.length >= 8, `${blocks.length} blocks`);
});

test("every README block is a page's block, verbatim", () => {
  const onPages = new Set(
    DOCS.slice(1)
      .flatMap(blocksOf)
      .map(([, text]) => text),
  );
  for (const [where, text] of blocksOf('README.md')) assert.ok(onPages.has(text), `${where} is on no page as it is`);
});

test('every block of the README and its pages type-checks in strict TypeScript', () => {
  const config = {
    compilerOptions: {
      strict: true,
      // What the strictest projects add: an optional member given `undefined` (an unset
      // environment variable) must be allowed by the type itself.
      exactOptionalPropertyTypes: true,
      noEmit: true,
      allowJs: true,
      checkJs: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: ['node'],
      skipLibCheck: false,
    },
    files: [...files.values()],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
  const r = spawnSync(join(PKG, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

// A block whose every `console.log(...)` line ends in a `// 'value'` comment runs in Node and
// prints exactly those values.
const saying = blocks.filter(([, text]) => {
  const logs = text.split('\n').filter((l) => l.startsWith('console.log('));
  return logs.length > 0 && logs.every((l) => /\/\/ '[\w-]+'$/.test(l));
});

test('the examples that say what they print print it', () => {
  assert.deepEqual(
    saying.map(([, text]) => text.match(/from '([^']+)'/)[1]),
    ['longcall', 'longcall/lite'],
    'the first example and the lite button',
  );
  for (const [where, text] of saying) {
    const r = node(files.get(text));
    assert.equal(r.status, 0, `${where}: ${r.stderr}`);
    const said = [...text.matchAll(/^console\.log\(.*\/\/ '([\w-]+)'$/gm)].map((m) => m[1]);
    assert.deepEqual(r.stdout.trim().split('\n'), said, where);
  }
});

test('the numbers-only example prints its outputs', () => {
  const [, text] = named('fastCreated');
  const r = node(files.get(text));
  assert.equal(r.status, 0, r.stderr);
  const kinds = r.stdout
    .trim()
    .split('\n')
    .map((l) => l.split(' ')[0]);
  assert.deepEqual(kinds, ['status', 'button', 'wake_at']);
});

test('the run loop drives tasks on the reference server to their outcomes', async () => {
  const server = createTasksServer({ pollIntervalMs: 50 });
  const url = await server.listen(0);
  try {
    const [, text] = named('export async function runTask');
    const { runTask } = await import(pathToFileURL(files.get(text)).href);
    const asked = [];
    const ask = async (request) => {
      asked.push(request);
      return { action: 'accept', content: { confirm: true } };
    };
    assert.equal(await runTask(url, 'slow_compute', { seconds: 0.1 }, ask), 'succeeded');
    assert.deepEqual(asked, [], 'slow_compute asks nothing');
    assert.equal(await runTask(url, 'confirm_delete', { filename: 'old.txt' }, ask), 'succeeded');
    assert.equal(asked.length, 1, 'the confirmation is asked once');
    assert.match(JSON.stringify(asked[0]), /Delete old\.txt\?/);
  } finally {
    await server.close();
  }
});

test('the node:http sender block runs a task on the reference server', async () => {
  const server = createTasksServer({ pollIntervalMs: 50 });
  const url = await server.listen(0);
  try {
    const [, text] = named('const nodeHttpSender');
    const file = join(dir, 'node-http-sender.mjs');
    writeFileSync(file, text.replace('http://127.0.0.1:3000/mcp', url));
    // Not spawnSync: the server answers from this process's event loop.
    const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 30_000 });
    assert.equal(stdout.trim(), 'succeeded');
  } finally {
    await server.close();
  }
});

test('the longcall/server block answers tools/call, tasks/get, tasks/update and tasks/cancel as a 2026 server', async () => {
  const [, text] = named("} from 'longcall/server';");
  const { handle, close } = await import(pathToFileURL(files.get(text)).href);
  const caps = {
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  };
  let id = 0;
  // The headers a 2026 client sends: the method, and what it names (the tool, the task).
  const call = (method, params, headers = { 'mcp-method': method, 'mcp-name': params?.name ?? params?.taskId }) => {
    const { httpStatus, body } = handle(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }), headers, 'ada');
    return [httpStatus, JSON.parse(body)];
  };
  const status = (taskId) => call('tasks/get', { taskId, _meta: caps })[1].result;
  const until = async (taskId, want) => {
    for (let i = 0; i < 100 && status(taskId).status !== want; i++) await new Promise((r) => setTimeout(r, 20));
    return status(taskId);
  };
  try {
    const [created, { result: task }] = call('tools/call', { name: 'render', arguments: {}, _meta: caps });
    assert.equal(created, 200);
    assert.equal(task.resultType, 'task');
    assert.equal(task.status, 'working');
    // Midway the worker asks; the answer comes with tasks/update and the render goes on with it.
    const asking = await until(task.taskId, 'input_required');
    assert.equal(asking.inputRequests.quality.method, 'elicitation/create');
    const answer = { action: 'accept', content: { high: true } };
    assert.deepEqual(call('tasks/update', { taskId: task.taskId, inputResponses: { quality: answer }, _meta: caps }), [
      200,
      { jsonrpc: '2.0', id, result: { resultType: 'complete' } },
    ]);
    const done = await until(task.taskId, 'completed');
    assert.deepEqual([done.status, done.resultType, done.statusMessage], ['completed', 'complete', 'frame 5 of 5']);
    assert.deepEqual(JSON.parse(done.result.content[0].text), answer);

    const [, { result: second }] = call('tools/call', { name: 'render', arguments: {}, _meta: caps });
    assert.deepEqual(call('tasks/cancel', { taskId: second.taskId, _meta: caps })[1].result, {
      resultType: 'complete',
    });
    assert.equal(status(second.taskId).status, 'working', 'cooperative: the worker settles it');
    assert.equal((await until(second.taskId, 'cancelled')).status, 'cancelled');

    const [refused, { error }] = call('tools/call', { name: 'render', arguments: {} });
    assert.deepEqual([refused, error.code], [400, -32021]);
    assert.deepEqual(call('tasks/get', { taskId: 'nope', _meta: caps })[1].error.code, -32602);
    assert.deepEqual(call('tools/list', {})[1].error.code, -32601);
    // A 2025 client's request (no Mcp-Method header) is refused, saying why.
    const [old, { error: why }] = call('tools/call', { name: 'render', arguments: {}, _meta: caps }, {});
    assert.deepEqual([old, why.code], [400, -32020]);
    assert.match(why.message, /without an Mcp-Method header/);
  } finally {
    close();
  }
});

test('the longcall/server block, served by its listen(), runs a call of longcall/mcp that answers the question', async () => {
  const [, text] = named("} from 'longcall/server';");
  const { listen, close } = await import(pathToFileURL(files.get(text)).href);
  const { callTool, httpSender } = await import('longcall/mcp');
  const server = await listen(0);
  try {
    const url = `http://127.0.0.1:${server.address().port}/mcp`;
    const asked = [];
    const h = await callTool(httpSender({ url }), {
      name: 'render',
      config: { poll: { initialMs: 50, minIntervalMs: 50 } },
      onInput: (key, request) => {
        asked.push([key, request.params.message]);
        return { action: 'accept', content: { high: false } };
      },
    });
    const out = await h.outcome;
    assert.equal(out.outcome, 'succeeded');
    assert.deepEqual(asked, [['quality', 'Render the rest in high quality?']]);
    assert.deepEqual(JSON.parse(out.result.content[0].text), { action: 'accept', content: { high: false } });
  } finally {
    close();
    server.close();
  }
});
