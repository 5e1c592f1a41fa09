// One paid job from Node with longcall/jobs: `node job-host.mjs BASE_URL API_KEY INTENT`.
// INTENT is the key of the person's decision, made once and kept with it: run this again with
// the same INTENT (after a crash, a timeout, a restart) and it continues or finds the same job;
// it never pays twice. The record of a running job is kept in ./jobs.json until it settles.
import { readFileSync, writeFileSync } from 'node:fs';
import { JobHost } from 'longcall/jobs';

const [baseUrl, apiKey, intent] = process.argv.slice(2);

/** @returns {Record<string, string>} */
const all = () => {
  try {
    return JSON.parse(readFileSync('jobs.json', 'utf8'));
  } catch {
    return {};
  }
};
/** @type {import('longcall/jobs').JobStore} */
const store = {
  get: (key) => all()[key],
  set: (key, text) => writeFileSync('jobs.json', JSON.stringify({ ...all(), [key]: text })),
  delete: (key) => {
    const { [key]: _done, ...rest } = all();
    writeFileSync('jobs.json', JSON.stringify(rest));
  },
};

const host = new JobHost({ baseUrl, headers: { authorization: `Bearer ${apiKey}` }, store });
const job = await host.submit(intent, {
  model: 'demo-image',
  kind: 'image',
  arguments: { prompt: 'a harbour at dawn' },
});
const end = await job.settled;
if (end.type === 'settled') console.log(job.id, end.outcome, JSON.stringify(end.result ?? end.error));
else console.log(job.id, 'stopped watching:', end.reason);
