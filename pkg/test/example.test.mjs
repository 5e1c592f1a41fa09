// The cancel-button example (examples/cancel-button/, shipped in the tarball, on longcall/jobs) is
// the browser snippet of docs/page.md: the block must equal the file, as the Node examples' blocks
// in docs/jobs.md must equal theirs; the file type-checks in strict TypeScript (checkJs), and it
// runs in headless Chromium at 390 px
// * against the example's scripted job API on loopback through every path: a queued job
//   cancelled; a started job answered 409, shown as too late, then finished first (never
//   "Cancelled"); a 502 HTML page, a 200 HTML page (a proxy's: it names no status), a dropped
//   connection and a 409 with an unlisted code each bring the button back to "Cancel" with a
//   note that the cancel did not go through, never through "Cancelled"; a proxy's 404 page on
//   two status polls does not make the job lost (rule O-6); a job submitted with the Render button finishes;
// * against the reference job server (`longcall serve-jobs`, proxied by serve.mjs on the page's
//   origin): a queued job cancelled and refunded; a processing job 409, "still running", then
//   finished, never "cancelled"; a completed job's cancel refused with nothing sent.
// The MCP task page (examples/mcp-button/) runs against the reference MCP tasks server: a task to
// its end with its progress, a 2026 cancel acknowledged then seen cancelled, an input asked once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from './support/chromium.mjs';
import { PKG } from './support/paths.mjs';
import { CLI, serveJobs } from './support/serve-jobs.mjs';
import { serveExample } from '../examples/cancel-button/serve.mjs';

const FILE = 'examples/cancel-button/cancel-button.js';

/** A page at a phone's width (390 px) opened at `url`, its uncaught errors in `logs`. */
async function phonePage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
  const logs = [];
  page.on('pageerror', (e) => logs.push(String(e)));
  try {
    await page.goto(url);
  } catch (e) {
    await page.close();
    throw e;
  }
  return { page, logs };
}

/** Records each state the page's cancel button shows in `window.__states`, from now on. */
function recordStates(page) {
  return page.evaluate(() => {
    const b = document.querySelector('#cancel');
    window.__states = [b.dataset.state];
    new MutationObserver(() => {
      if (window.__states.at(-1) !== b.dataset.state) window.__states.push(b.dataset.state);
    }).observe(b, { attributes: true, attributeFilter: ['data-state'] });
  });
}

/**
 * The example server (scripted jobs, the reference MCP tasks server behind `/mcp`) and Chromium,
 * started before the tests of the enclosing `describe` and stopped after them.
 */
function examplesInChromium() {
  const at = {};
  before(
    async () => {
      at.server = await serveExample();
      at.browser = await launchChromium();
    },
    { timeout: 60_000 },
  );
  after(async () => {
    await at.browser?.close();
    await at.server?.close();
  });
  return at;
}

test('every example block of the README and its pages is its file, verbatim', () => {
  // The README and docs/*.md (not the rule book, copied in at pack time).
  const pages = [
    'README.md',
    ...readdirSync(join(PKG, 'docs'))
      .filter((f) => f.endsWith('.md') && f !== 'rules.md')
      .map((f) => `docs/${f}`),
  ];
  const blocks = pages.flatMap((page) => [
    ...readFileSync(join(PKG, page), 'utf8').matchAll(/<!-- example: (\S+) -->\s*```js\n([\s\S]*?)```/g),
  ]);
  assert.deepEqual(blocks.map((m) => m[1]).sort(), [FILE, 'examples/job-batch.mjs', 'examples/job-host.mjs'].sort());
  for (const [, file, text] of blocks) assert.equal(text, readFileSync(join(PKG, file), 'utf8'), file);
});

test('the Node examples type-check in strict TypeScript (checkJs)', () => {
  const r = spawnSync(join(PKG, 'node_modules/.bin/tsc'), ['-p', join(PKG, 'test/types/examples-node.tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test('the example type-checks in strict TypeScript (checkJs)', () => {
  const r = spawnSync(join(PKG, 'node_modules/.bin/tsc'), ['-p', join(PKG, 'test/types/example.tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

// Both button examples, each against a scripted job API of its own (a script plays once per
// server): `cancel-button` on longcall/jobs, `lite-button` on longcall/lite's numbers.
for (const example of ['cancel-button', 'lite-button'])
  describe(`the ${example} page in Chromium at 390 px`, () => {
    const at = examplesInChromium();

    async function flow(job, { until, within = 15_000 }) {
      const { page, logs } = await phonePage(at.browser, `${at.server.base}/examples/${example}/?job=${job}`);
      try {
        await page.waitForSelector('#cancel[data-state="available"]', { timeout: 10_000 });
        await recordStates(page);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 390, `the page is ${width} px wide at 390`);
        await page.click('#cancel');
        await page.waitForFunction(until, null, { timeout: within });
        return {
          states: await page.evaluate(() => window.__states),
          label: await page.textContent('#cancel'),
          note: await page.textContent('#note'),
          logs,
        };
      } finally {
        await page.close();
      }
    }

    test('a submitted job whose model names a script plays it', async () => {
      const r = await fetch(`${at.server.base}/v1/image-router/generate`, {
        method: 'POST',
        headers: { 'idempotency-key': `scripted-${example}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'late', prompt: 'a cat' }),
      });
      const id = (await r.json()).data.request_id;
      assert.match(id, /^late-\d+$/);
      const refused = await fetch(`${at.server.base}/v1/jobs/${id}/cancel`, { method: 'POST' });
      assert.equal(refused.status, 409);
    });

    test('a script plays again as a job of its own under NAME-N', async () => {
      const api = (id, what, method = 'GET') => fetch(`${at.server.base}/v1/jobs/${id}/${what}`, { method });
      for (const id of ['late-71', 'late-72']) {
        assert.equal((await (await api(id, 'status')).json()).data.sume_status, 'queued');
        const refused = await api(id, 'cancel', 'POST');
        assert.equal(refused.status, 409);
        assert.equal((await refused.json()).error.code, 'job_generation_already_started');
        assert.deepEqual((await (await api(id, 'status')).json()).data, { request_id: id, sume_status: 'processing' });
      }
    });

    test('a queued job is cancelled', { timeout: 30_000 }, async () => {
      const r = await flow('queued', { until: () => document.querySelector('#cancel').dataset.state === 'cancelled' });
      assert.deepEqual(r.states, ['available', 'requesting', 'cancelled'], r.logs.join('\n'));
      assert.equal(r.label, 'Cancelled');
    });

    test('a started job: 409, too late, then finished first, never cancelled', { timeout: 30_000 }, async () => {
      const r = await flow('late', {
        until: () => document.querySelector('#cancel').dataset.state === 'finished_first',
      });
      assert.deepEqual(r.states, ['available', 'requesting', 'too_late', 'finished_first'], r.logs.join('\n'));
    });

    /**
     * A `?model=` test of the cancel-button page (submitting is longcall/jobs'): opens the page,
     * hands it to `check`, which presses Render; the page may throw no uncaught error meanwhile.
     */
    const submitting = (name, model, check) =>
      test(name, {
        timeout: 45_000,
        skip: example !== 'cancel-button' && "submitting is longcall/jobs' (the cancel-button page)",
      }, async () => {
        const { page, logs } = await phonePage(at.browser, `${at.server.base}/examples/cancel-button/?model=${model}`);
        try {
          await check(page);
          assert.deepEqual(logs, []);
        } finally {
          await page.close();
        }
      });
    /** The note, once it says how the job ended. */
    const finished = async (page) => {
      await page.waitForFunction(() => document.querySelector('#note').textContent.startsWith('Finished'), null, {
        timeout: 30_000,
      });
      return page.textContent('#note');
    };

    submitting('?model=NAME: Render submits, the job finishes, the intent is gone', 'demo-image', async (page) => {
      await page.click('#render');
      await page.waitForSelector('#cancel[data-state="available"]', { timeout: 10_000 });
      assert.equal(await finished(page), 'Finished: succeeded');
      assert.deepEqual(await page.evaluate(() => Object.keys(localStorage)), []);
    });

    submitting(
      'a cancel pressed while the submit is out is kept, made once the job is named: cancelled (E-65)',
      'slow-submit',
      async (page) => {
        await recordStates(page);
        await page.click('#render');
        // The submit is answered in 2 s; the button is pressable meanwhile.
        await page.waitForSelector('#cancel:not([disabled])', { timeout: 10_000 });
        await page.click('#cancel');
        assert.equal(await page.textContent('#note'), 'Cancel asked: it goes out as soon as the job is made.');
        assert.ok(await page.isDisabled('#cancel'), 'pressed once');
        assert.equal(await finished(page), 'Finished: cancelled');
        assert.deepEqual((await page.evaluate(() => window.__states)).slice(-2), ['requesting', 'cancelled']);
      },
    );

    submitting(
      'a submit that finds the queue full says it is tried again, and the job is made',
      'full-once',
      async (page) => {
        await page.click('#render');
        await page.waitForFunction(
          () => document.querySelector('#note').textContent === 'The job queue is full; trying again…',
          null,
          { timeout: 10_000 },
        );
        assert.equal(await finished(page), 'Finished: succeeded');
        // Sent twice with its key, one job made: what the API's counters say.
        const { submitsPerKey, jobPerKey } = await (await fetch(`${at.server.base}/_counters`)).json();
        const keys = Object.keys(submitsPerKey).filter((k) => !k.startsWith('unkeyed'));
        const key = keys.find((k) => submitsPerKey[k] === 2);
        assert.ok(key, JSON.stringify(submitsPerKey));
        assert.match(jobPerKey[key], /^job_\d+$/);
      },
    );

    test('?key= is the API key every request of the job carries', { timeout: 30_000 }, async () => {
      const { page, logs } = await phonePage(at.browser, `${at.server.base}/examples/${example}/?job=owned&key=owner`);
      try {
        await page.waitForFunction(() => document.querySelector('#note').textContent.startsWith('Finished'), null, {
          timeout: 25_000,
        });
        assert.match(await page.textContent('#note'), /^Finished: (succeeded|https:)/);
        assert.deepEqual(logs, []);
      } finally {
        await page.close();
      }
    });

    // Polls the API does not answer as it should, and the job is still seen to its end.
    for (const [job, what] of [
      ['unknown', 'a status the API does not list: polling goes on'],
      ['html404', "a proxy's 404 page on a status poll: the job is not lost (O-6)"],
    ]) {
      test(`${what}, and the job is seen finished`, { timeout: 40_000 }, async () => {
        const { page, logs } = await phonePage(at.browser, `${at.server.base}/examples/${example}/?job=${job}`);
        try {
          if (job === 'html404')
            // The failed polls are said while they last, not only seen in the end.
            await page.waitForFunction(
              () => document.querySelector('#note').textContent === 'The job server is not answering; trying again…',
              null,
              { timeout: 15_000 },
            );
          await page.waitForFunction(() => document.querySelector('#note').textContent.startsWith('Finished'), null, {
            timeout: 35_000,
          });
          assert.match(await page.textContent('#note'), /^Finished: (succeeded|https:)/);
          assert.deepEqual(logs, []);
        } finally {
          await page.close();
        }
      });
    }

    for (const job of ['html502', 'html200', 'drop', 'unlisted']) {
      test(`${job}: the button does not stay at "requesting"`, { timeout: 30_000 }, async () => {
        const r = await flow(job, { until: () => window.__states.length > 2 });
        assert.notEqual(r.states.at(-1), 'requesting', r.states.join(' -> '));
        assert.ok(!r.states.includes('cancelled'), r.states.join(' -> '));
        // Back to "Cancel", pressable again, with a word on why, not silently.
        assert.equal(r.states.at(-1), 'available', r.states.join(' -> '));
        assert.equal(r.note, 'The cancel got no clear answer: it may not have arrived. Try again.');
        assert.deepEqual(r.logs, []);
      });
    }
  });

// The MCP task page (examples/mcp-button/, on longcall/mcp's httpSender) against the reference
// MCP tasks server, which serve.mjs puts behind the page's own `/mcp`.
describe('the mcp-button page in Chromium at 390 px', () => {
  const at = examplesInChromium();

  /**
   * Opens the page for `tool`, records its button's states, presses Run and hands the page to
   * `check`; the page may throw no uncaught error meanwhile.
   */
  async function run(tool, args, check) {
    const q = new URLSearchParams({ tool, args: JSON.stringify(args) });
    const { page, logs } = await phonePage(at.browser, `${at.server.base}/examples/mcp-button/?${q}`);
    try {
      await recordStates(page);
      await page.click('#run');
      await check(page);
      assert.deepEqual(logs, []);
    } finally {
      await page.close();
    }
  }
  const finished = (page) =>
    page.waitForFunction(() => document.querySelector('#note').textContent.startsWith('Finished'), null, {
      timeout: 20_000,
    });
  const states = (page) => page.evaluate(() => window.__states);

  test('a task runs to its end, its progress shown, the button ending "Done"', { timeout: 30_000 }, () =>
    run('slow_compute', { seconds: 2 }, async (page) => {
      await page.waitForFunction(() => document.querySelector('#progress').textContent.includes('of 2 s done'));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390`);
      await finished(page);
      assert.equal(await page.textContent('#note'), 'Finished: succeeded');
      assert.match(await page.textContent('#progress'), /done after 2s/, "the result's text");
      assert.deepEqual(await states(page), ['unavailable', 'available', 'not_applicable']);
      assert.equal(await page.textContent('#cancel'), 'Done');
    }),
  );

  test('a 2026 cancel: acknowledged, then cancelled once a poll sees it, never before', { timeout: 30_000 }, () =>
    run('slow_compute', { seconds: 30 }, async (page) => {
      await page.waitForSelector('#cancel[data-state="available"]', { timeout: 10_000 });
      await page.click('#cancel');
      await finished(page);
      assert.equal(await page.textContent('#note'), 'Finished: cancelled');
      assert.deepEqual(await states(page), [
        'unavailable',
        'available',
        'requesting',
        'acknowledged_pending',
        'cancelled',
      ]);
    }),
  );

  test('a question open when the server takes a cancel closes, and nothing answers it', { timeout: 30_000 }, () =>
    run('confirm_delete', { filename: 'b.txt' }, async (page) => {
      await page.waitForSelector('#ask:not([hidden]) >> text=Delete b.txt?', { timeout: 10_000 });
      // The button's state when the question closed: withdrawn on the server's ack, not at the end.
      await page.evaluate(() => {
        const ask = document.querySelector('#ask');
        new MutationObserver(() => {
          if (ask.hidden) window.__closedAt ??= document.querySelector('#cancel').dataset.state;
        }).observe(ask, { attributes: true, attributeFilter: ['hidden'] });
      });
      await page.click('#cancel');
      await finished(page);
      assert.equal(await page.evaluate(() => window.__closedAt), 'acknowledged_pending');
      assert.equal(await page.textContent('#note'), 'Finished: cancelled');
      assert.deepEqual((await states(page)).slice(-3), ['requesting', 'acknowledged_pending', 'cancelled']);
    }),
  );

  test('an input is asked in the page once, and the answer reaches the tool', { timeout: 30_000 }, () =>
    run('confirm_delete', { filename: 'a.txt' }, async (page) => {
      await page.waitForSelector('#ask:not([hidden]) >> text=Delete a.txt?', { timeout: 10_000 });
      assert.equal(await page.textContent('#note'), 'Waiting for your answer');
      await page.click('#ask >> text=Yes');
      await finished(page);
      assert.equal(await page.textContent('#note'), 'Finished: succeeded');
      assert.equal(await page.isHidden('#ask'), true);
    }),
  );
});

describe('the example page against longcall serve-jobs', { skip: !existsSync(CLI) && `no CLI at ${CLI}` }, () => {
  const KEY = 'page-key';
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // Two job servers: jobs that stay queued for the cancel, and jobs that start a few seconds
  // after their submit (time for the page to load and see them queued) and run for two seconds.
  let queued, starting, browser, completed;
  async function start(args) {
    const jobs = serveJobs([...args, '--max-seconds', '120']);
    const api = await jobs.url;
    const page = await serveExample(0, { api });
    return { jobs, api, page };
  }
  before(
    async () => {
      [queued, starting, browser] = await Promise.all([
        start(['--queue-wait-ms', '60000']),
        start(['--queue-wait-ms', '5000', '--generation-ms', '2000']),
        launchChromium(),
      ]);
      // Done by the time its test runs (the other flows take longer than its queue wait).
      completed = await submit(starting, 'page-completed');
    },
    { timeout: 60_000 },
  );
  after(async () => {
    await browser?.close();
    for (const s of [queued, starting]) {
      await s?.page.close();
      s?.jobs.child.kill();
    }
  });

  const counters = async (s) => (await fetch(`${s.api}/_counters`)).json();
  async function submit(s, intent) {
    const r = await fetch(`${s.api}/v1/image-router/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'idempotency-key': intent, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-image', prompt: intent }),
    });
    return (await r.json()).data.request_id;
  }
  /** Opens the page on job `id`; records its button states and the requests it makes. */
  async function open(s, id) {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    const r = { page, logs: [], requests: [] };
    page.on('pageerror', (e) => r.logs.push(String(e)));
    page.on('request', (q) => r.requests.push(`${q.method()} ${new URL(q.url()).pathname}`));
    await page.goto(`${s.page.base}/examples/cancel-button/?job=${id}&key=${KEY}`);
    await page.waitForSelector('#cancel:not([data-state="unavailable"])[data-state]', { timeout: 15_000 });
    await recordStates(page);
    r.states = () => page.evaluate(() => window.__states);
    return r;
  }

  test('a queued job is cancelled, and the credit comes back', { timeout: 40_000 }, async () => {
    const id = await submit(queued, 'page-queued');
    const r = await open(queued, id);
    try {
      await press(r);
      await r.page.waitForSelector('#cancel[data-state="cancelled"]', { timeout: 15_000 });
      assert.deepEqual(await r.states(), ['available', 'requesting', 'cancelled'], r.logs.join('\n'));
      assert.equal(await r.page.textContent('#cancel'), 'Cancelled');
      await r.page.waitForFunction(() => document.querySelector('#note').textContent.startsWith('Finished'));
      assert.equal(await r.page.textContent('#note'), 'Finished: cancelled');
      const c = await counters(queued);
      assert.equal(c.jobs[id].status, 'canceled');
      assert.equal(c.credits[KEY], 100, 'refunded');
    } finally {
      await r.page.close();
    }
  });

  async function press(r) {
    assert.equal(await r.page.getAttribute('#cancel', 'data-state'), 'available');
    await r.page.click('#cancel');
  }

  test('a processing job: 409, "still running", then finished, never cancelled', { timeout: 60_000 }, async () => {
    const id = await submit(starting, 'page-late');
    const r = await open(starting, id);
    try {
      assert.equal(await r.page.getAttribute('#cancel', 'data-state'), 'available', 'seen queued');
      // The person presses after generation started, before the page's next poll says so: the
      // page's status polls wait until then (the cancel itself is not held).
      let release;
      const gate = new Promise((ok) => {
        release = ok;
      });
      await r.page.route('**/status', async (route) => {
        await gate;
        await route.continue();
      });
      while (!(await counters(starting)).jobs[id].started_at_ms) await sleep(50);
      assert.equal(await r.page.getAttribute('#cancel', 'data-state'), 'available');
      await r.page.click('#cancel');
      await r.page.waitForSelector('#cancel[data-state="too_late"]', { timeout: 10_000 });
      assert.equal(await r.page.textContent('#cancel'), 'Still running: too late to cancel');
      release();
      await r.page.waitForSelector('#cancel[data-state="finished_first"]', { timeout: 20_000 });
      assert.deepEqual(await r.states(), ['available', 'requesting', 'too_late', 'finished_first'], r.logs.join('\n'));
      assert.equal(await r.page.textContent('#note'), 'Finished: succeeded');
      assert.equal((await counters(starting)).jobs[id].status, 'completed');
    } finally {
      await r.page.close();
    }
  });

  test('a completed job: the cancel is refused and nothing is sent', { timeout: 40_000 }, async () => {
    const id = completed;
    while ((await counters(starting)).jobs[id].status !== 'completed') await sleep(100);
    const r = await open(starting, id);
    try {
      await r.page.waitForFunction(() => document.querySelector('#note').textContent.startsWith('Finished'));
      assert.equal(await r.page.textContent('#note'), 'Finished: succeeded');
      assert.ok(await r.page.isDisabled('#cancel'), 'the button is disabled');
      const cancels = (await counters(starting)).cancels;
      // Pressed anyway (the attribute removed, as a person could in the developer tools).
      await r.page.evaluate(() => {
        const b = document.querySelector('#cancel');
        b.disabled = false;
        b.click();
      });
      await r.page.waitForFunction(() => document.querySelector('#note').textContent.startsWith('Not sent'));
      assert.equal(await r.page.textContent('#note'), 'Not sent: cancel_refused');
      await sleep(300);
      assert.deepEqual(
        r.requests.filter((q) => q.endsWith('/cancel')),
        [],
        r.requests.join('\n'),
      );
      assert.equal((await counters(starting)).cancels, cancels, 'the server saw no cancel');
      assert.deepEqual(r.logs, []);
    } finally {
      await r.page.close();
    }
  });

  test('a job submitted from the page, reloaded mid-watch: the same job, no second submit', {
    timeout: 40_000,
  }, async () => {
    const { page, logs } = await phonePage(
      browser,
      `${queued.page.base}/examples/cancel-button/?model=demo-image&key=${KEY}`,
    );
    try {
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390`);
      const before = await counters(queued);
      await page.click('#render');
      await page.waitForSelector('#cancel[data-state="available"]', { timeout: 15_000 });
      const intent = await page.evaluate(() => localStorage.getItem('intent'));
      assert.ok(intent, 'the intent key is kept in the page');
      const created = await counters(queued);
      assert.equal(created.submits, before.submits + 1);
      assert.equal(created.jobs_per_idempotency_key[intent], 1);
      await page.reload();
      await page.waitForSelector('#cancel[data-state="available"]', { timeout: 15_000 });
      await page.click('#cancel');
      await page.waitForSelector('#cancel[data-state="cancelled"]', { timeout: 15_000 });
      await page.waitForFunction(() => document.querySelector('#note').textContent.startsWith('Finished'));
      assert.equal(await page.textContent('#note'), 'Finished: cancelled');
      const after = await counters(queued);
      assert.equal(after.submits, created.submits, 'the reloaded page sent no submit');
      assert.equal(after.jobs_per_idempotency_key[intent], 1);
      const done = await page.evaluate(() => Object.keys(localStorage));
      assert.deepEqual(done, [], 'the intent and the record go once the job settled');
      assert.deepEqual(logs, []);
    } finally {
      await page.close();
    }
  });
});
