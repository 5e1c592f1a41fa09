// An honest cancel button for a paid job, on `longcall/jobs` (the job host): the core decides
// every poll, every label, whether a cancel may go out and what its answer means; the host moves
// bytes with fetch; this file shows what they say.
import { init } from 'longcall';
import { JobHost } from 'longcall/jobs';

/** What the button says in each state the core gives it. */
/** @type {Record<import('longcall').ButtonState, string>} */
const LABEL = {
  unavailable: 'Cancel', // while submitting: a press is kept for the job; after: no longer watched
  available: 'Cancel', // queued: a cancel would stop it before it bills
  requesting: 'Cancelling…', // the cancel is out
  acknowledged_pending: 'Cancel requested', // accepted; the job has not ended yet
  too_late: 'Still running: too late to cancel', // started (seen so, or a 409): it runs and bills
  cancelled: 'Cancelled', // the server says so
  finished_first: 'Finished: the cancel came too late', // it ran to its end (and bills), whether the cancel was refused or outrun
  not_applicable: 'Done', // ended with no cancel pressed
};

/** Each job's record in `localStorage` until it settles: a reload continues the same job. */
/** @type {import('longcall/jobs').JobStore} */
const store = {
  get: (intent) => localStorage.getItem(`job:${intent}`),
  set: (intent, text) => localStorage.setItem(`job:${intent}`, text),
  delete: (intent) => localStorage.removeItem(`job:${intent}`),
};

/**
 * Where the page keeps the .wasm: `<meta name="longcall-wasm" content="assets/longcall_bg.wasm">`
 * (relative to the page; a meta tag because a module cannot find the script tag that loaded it,
 * bundled or not). Without it, `init()` finds the file next to the package's JavaScript, as it is
 * unbundled; a bundler that does not copy it (esbuild) needs the tag.
 */
const wasmUrl = () => {
  const url = document.querySelector('meta[name="longcall-wasm"]')?.getAttribute('content');
  return url ? new URL(url, document.baseURI) : undefined;
};

/**
 * A job host on the Sume Open API at `api.baseUrl`.
 * @param {{baseUrl: string, apiKey?: string | undefined}} api
 */
async function jobHost(api) {
  await init(wasmUrl());
  /** @type {Record<string, string>} */
  const headers = api.apiKey ? { authorization: `Bearer ${api.apiKey}` } : {};
  // A person is watching: at most 5 s between polls keeps the status and the button that close to
  // the job's (the core's default cap, 30 s, suits hosts nobody watches). Floors still hold.
  const config = { poll: { capMs: 5_000 } };
  return new JobHost({ baseUrl: api.baseUrl, headers, store, config });
}

/**
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} note
 */
const showOn = (button, note) => ({
  /**
   * @param {import('longcall').ButtonState} state
   * @param {import('longcall/jobs').Job} job
   */
  onButton: (state, job) => {
    // Back to `available` from `requesting`: the cancel got no answer that settles it (a 5xx, a
    // dropped connection, a code the core does not know, a 200 that names no status). It may
    // not have arrived, or have arrived unanswered: the next status tells; it may be pressed
    // again.
    if (button.dataset.state === 'requesting' && state === 'available')
      note.textContent = 'The cancel got no clear answer: it may not have arrived. Try again.';
    else if (state === 'requesting') note.textContent = '';
    button.textContent = LABEL[state];
    // While the submit is out (no job id yet) a press is kept and made once the job is named.
    button.disabled = !(state === 'available' || (state === 'unavailable' && job.id === undefined));
    button.dataset.state = state;
  },
  // A submit refused for now (a 429, a 503) or unanswered: the core sends it again with the same
  // key, by its backoff, so the job is made once; say so while it waits. (A refusal for good
  // settles the job `failed`, which `follow` shows.)
  /** @param {import('longcall').EndpointEvent} event */
  onEvent: (event) => {
    if (event.type !== 'admission') return;
    const { advice } = event.advice;
    if (advice === 'queue_full') note.textContent = 'The job queue is full; trying again…';
    else if (advice === 'reconcile') note.textContent = 'The job server is not answering; trying again…';
    else if (advice !== 'accepted' && advice !== 'permanent')
      note.textContent = 'The job server is busy; trying again…';
  },
  // A status poll got no usable answer (the server is down, a 503): the core polls again by
  // its backoff, and says so once the server answers again.
  onRequestFailed: () => {
    note.textContent = 'The job server is not answering; trying again…';
  },
  onRecovered: () => {
    note.textContent = '';
  },
});

/**
 * Wires `button` to the job's cancel and says in `note` how it ended.
 * @param {import('longcall/jobs').Job} job
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} note
 */
async function follow(job, button, note) {
  // While the submit is out (no job id yet), a press is kept and made once the job is named.
  if (job.id === undefined) button.disabled = false;
  button.onclick = () => {
    if (job.id === undefined) {
      button.disabled = true;
      note.textContent = 'Cancel asked: it goes out as soon as the job is made.';
    }
    // The core sends the cancel (the button shows its answer), or refuses it: nothing goes out.
    job.cancel().catch((e) => {
      note.textContent = `Not sent: ${/** @type {{code?: string}} */ (e).code ?? e}`;
    });
  };
  const end = await job.settled;
  button.disabled = true;
  note.textContent = end.type === 'settled' ? `Finished: ${end.outcome}` : `Stopped watching: ${end.reason}`;
  return end;
}

/**
 * Watches job `jobId` (created elsewhere) and drives `button`; `note` says what happened.
 * @param {{baseUrl: string, apiKey?: string | undefined}} api
 * @param {string} jobId
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} note
 */
export async function watchJob(api, jobId, button, note) {
  const host = await jobHost(api);
  await follow(host.watch(jobId, showOn(button, note)), button, note);
}

/**
 * Submits `job` once per decision of the person, or continues the one already decided (after a
 * reload): its intent key is made at the first press and kept until the job settled, so neither
 * a retry nor a reload pays twice.
 * @param {{baseUrl: string, apiKey?: string | undefined}} api
 * @param {{model: string, kind: import('longcall').JobKind, arguments?: {[key: string]: import('longcall').Json}}} job
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} note
 */
export async function submitJob(api, job, button, note) {
  const host = await jobHost(api);
  const intent = localStorage.getItem('intent') ?? crypto.randomUUID();
  localStorage.setItem('intent', intent);
  const running = await host.submit(intent, job, showOn(button, note));
  const end = await follow(running, button, note);
  if (end.type === 'settled') localStorage.removeItem('intent');
}

/** True when a job decided before a reload is not settled yet. */
export const pendingJob = () => localStorage.getItem('intent') !== null;
