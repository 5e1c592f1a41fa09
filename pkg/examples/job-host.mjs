// One paid job from Node with longcall/jobs: `node job-host.mjs BASE_URL API_KEY INTENT`.
// INTENT is the key of the person's decision, made once and kept with it: run this again with
// the same INTENT (after a crash, a timeout, a restart) and it continues or finds the same job;
// it never pays twice. The record of a running job is kept in ./jobs.json until it settles.
// Progress goes to stderr as it happens; the end to stdout as `ID OUTCOME JSON` (ID is the
// INTENT when the server never gave a job id). Exit status: 0 when the job succeeded, 1 when it
// ended otherwise or watching stopped without an outcome, 2 for a usage error.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { JobHost } from 'longcall/jobs';

const [baseUrl, apiKey, intent] = process.argv.slice(2);
if (!baseUrl || !apiKey || !intent) {
  console.error('usage: node job-host.mjs BASE_URL API_KEY INTENT');
  process.exit(2);
}

// No file is no record. A file that cannot be read throws: read as "no record", it would make
// a job of the same intent look new (only the server's idempotency key would then stand
// between you and a second charge).
/** @returns {Record<string, string>} */
const all = () => {
  try {
    return JSON.parse(readFileSync('jobs.json', 'utf8'));
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return {};
    throw e;
  }
};
// Written whole, then renamed over the old file: a crash mid-write leaves the old records.
/** @param {Record<string, string>} records */
const write = (records) => {
  writeFileSync('jobs.json.tmp', JSON.stringify(records));
  renameSync('jobs.json.tmp', 'jobs.json');
};
/** @type {import('longcall/jobs').JobStore} */
const store = {
  get: (key) => all()[key],
  set: (key, text) => write({ ...all(), [key]: text }),
  delete: (key) => {
    const { [key]: _done, ...rest } = all();
    write(rest);
  },
};

// Until the server gives a job id, the intent is the only name the job has.
/** @param {{id?: string | undefined}} [job] */
const name = (job) => (job?.id ? `job ${job.id}` : `intent ${intent}`);
/** @param {{id?: string | undefined} | undefined} job @param {string} what */
const say = (job, what) => console.error(`${name(job)}: ${what}`);
/** What a failed fetch says: "fetch failed: connect ECONNREFUSED 127.0.0.1:3000". @param {any} e */
const why = (e) => {
  const words = [];
  for (let x = e, depth = 0; x != null && depth < 4; x = x.cause, depth++) words.push(x.message || x.code);
  return words.filter(Boolean).join(': ');
};

say(undefined, all()[intent] ? 'continuing from ./jobs.json' : `submitting to ${baseUrl}`);
const host = new JobHost({ baseUrl, headers: { authorization: `Bearer ${apiKey}` }, store });
// Ctrl-C or a service manager's SIGTERM ends watching as an exit would: the record stays in
// ./jobs.json, the job goes on at the server, and a run with the same INTENT carries on.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => host.close());
const job = await host.submit(
  intent,
  { model: 'demo-image', kind: 'image', arguments: { prompt: 'a harbour at dawn' } },
  {
    onStatus: (status, j) => say(j, `status ${status}`),
    onButton: (state, j) => say(j, `cancel button ${state}`),
    onEvent: (e, j) => {
      if (e.type === 'admission' && e.httpStatus === 0)
        say(j, `no answer to the submit (${why(e.cause)}); it goes again with the same key`);
      else if (e.type === 'admission') say(j, `submit answered HTTP ${e.httpStatus}: ${e.advice.advice}`);
      else if (e.type === 'violation') say(j, `the server broke ${e.violation.rule}`);
    },
  },
);
const end = await job.settled;
if (end.type === 'settled') {
  console.log(job.id ?? intent, end.outcome, JSON.stringify(end.result ?? end.error ?? null));
  process.exitCode = end.outcome === 'succeeded' ? 0 : 1;
} else {
  const cause = end.cause ? `, last request unanswered: ${why(end.cause)}` : '';
  say(job, `stopped watching without an outcome (${end.reason}${cause}); run again with the same INTENT`);
  process.exitCode = 1;
}
