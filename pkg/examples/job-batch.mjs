// Many paid jobs from Node, watched together: `node job-batch.mjs BASE_URL API_KEY BATCH [COUNT]`.
// It submits COUNT jobs (default 3) under the intents BATCH-1 .. BATCH-COUNT, each intent the
// job's idempotency key: run it again with the same BATCH and the server answers with the jobs
// it already has, so nothing is paid twice. Once each job is created, one wave watches them all
// with a `jobs_wait` round at a time, not a poll per job. That route, `POST /jobs/wait`, is the
// MCP job tools' (`longcall serve-jobs` serves it; the Sume Open API has none). Prints
// `INTENT ID OUTCOME` per job to stdout; exit status 0 when every job succeeded, 1 otherwise,
// 2 for a usage error.
import { JobHost } from 'longcall/jobs';

const [baseUrl, apiKey, batch, count = '3'] = process.argv.slice(2);
const n = Number(count);
if (!baseUrl || !apiKey || !batch || !Number.isInteger(n) || n < 1) {
  console.error('usage: node job-batch.mjs BASE_URL API_KEY BATCH [COUNT]');
  process.exit(2);
}

const host = new JobHost({ baseUrl, headers: { authorization: `Bearer ${apiKey}` } });
const intents = Array.from({ length: n }, (_, i) => `${batch}-${i + 1}`);
const jobs = await Promise.all(
  intents.map((intent, i) =>
    host.submit(intent, { model: 'demo-image', kind: 'image', arguments: { prompt: `frame ${i + 1}` } }),
  ),
);
// A wave takes created jobs: each waits for its submit's answer first. A submit refused for
// good, or left unanswered, creates none; its `settled` says why. A job that already finished
// (a second run finds it by its key) counts as settled in the wave at once.
const created = await Promise.all(jobs.map((job) => job.created));
// Bounded: a wave whose rounds keep failing (a server without `jobs_wait`) tries again with
// backoff, so without a deadline it would wait for good.
const { done } = host.wait(
  jobs.filter((_, i) => created[i]),
  { waitFor: 'all', timeoutSeconds: 5, deadline: Date.now() + 10 * 60_000 },
);
const { rounds, failedRounds, lastFailure } = await done;
console.error(`${rounds} jobs_wait round(s) for ${n} job(s)`);
if (failedRounds > 0)
  console.error(`${failedRounds} round(s) got no usable answer, the last: HTTP ${lastFailure?.httpStatus}`);

let allSucceeded = true;
for (const [i, job] of jobs.entries()) {
  const end = await job.settled;
  const outcome = end.type === 'settled' ? end.outcome : `stopped:${end.reason}`;
  allSucceeded &&= outcome === 'succeeded';
  console.log(intents[i], job.id ?? '-', outcome);
}
process.exitCode = allSucceeded ? 0 : 1;
