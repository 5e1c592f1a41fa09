// An honest cancel button for one paid job, on `longcall/jobs` (the job host): the core decides
// every poll, every label, whether a cancel may go out and what its answer means; the host moves
// bytes with fetch; this file shows what they say.
import { init } from 'longcall';
import { JobHost } from 'longcall/jobs';

/** @type {Record<import('longcall').ButtonState, string>} */
const LABEL = {
  unavailable: 'Cancel',
  available: 'Cancel',
  requesting: 'Cancelling…',
  acknowledged_pending: 'Cancel requested',
  too_late: 'Too late: still running',
  cancelled: 'Cancelled',
  finished_first: 'Finished first',
  not_applicable: 'Done',
};

/**
 * Watches job `jobId` on the Sume Open API at `baseUrl` and drives `button`; `note` says what
 * happened.
 * @param {{baseUrl: string, apiKey?: string}} api
 * @param {string} jobId
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} note
 */
export async function watchJob(api, jobId, button, note) {
  await init(); // fetches the .wasm next to the package's JS; pass its URL if your bundler moves it
  /** @type {Record<string, string>} */
  const headers = api.apiKey ? { authorization: `Bearer ${api.apiKey}` } : {};
  const host = new JobHost({ baseUrl: api.baseUrl, headers });
  const job = host.watch(jobId, {
    onButton: (state) => {
      button.textContent = LABEL[state];
      button.disabled = state !== 'available';
      button.dataset.state = state;
    },
  });
  button.onclick = () => {
    try {
      job.cancel(); // the core sends the cancel, or refuses it (then nothing goes out)
    } catch (e) {
      note.textContent = `Not sent: ${/** @type {{code?: string}} */ (e).code ?? e}`;
    }
  };
  const end = await job.settled;
  note.textContent = end.type === 'settled' ? `Finished: ${end.outcome}` : `Stopped watching: ${end.reason}`;
}
