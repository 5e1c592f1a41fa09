// An honest cancel button for one paid job, on `longcall/lite` (the small build): the core
// decides every poll, every label and whether a cancel may go out; this file moves bytes.
import { init, Tracker, decodeFast, STATUSES, REQUEST_KINDS } from 'longcall/lite';

/** @type {Record<import('longcall/lite').ButtonState, string>} */
const LABEL = {
  unavailable: 'Cancel',
  available: 'Cancel',
  requesting: 'Cancelling…',
  acknowledged_pending: 'Cancel requested',
  too_late: 'Too late: already generating',
  cancelled: 'Cancelled',
  finished_first: 'Finished first',
  not_applicable: 'Done',
};

/**
 * Watches job `jobId` (first seen in `status`) and drives `button`; `note` says what happened.
 * @param {string} jobId
 * @param {import('longcall/lite').JobStatus} status
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} note
 */
export async function watchJob(jobId, status, button, note) {
  await init(); // fetches the .wasm next to the package's JS; pass its URL if your bundler moves it
  const t = new Tracker('job');
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;

  /** @param {number} n what a `fast*` call returned: an output count, or -1 (see `t.lastError`) */
  const apply = (n) => {
    if (n < 0) return; // refused (a press that is not allowed now, an answer it cannot read): nothing changed
    for (const o of decodeFast(t, n)) {
      if (o.type === 'button') {
        button.textContent = LABEL[o.state];
        button.disabled = o.state !== 'available';
        button.dataset.state = o.state;
      } else if (o.type === 'send') {
        void send(o.request);
      } else if (o.type === 'wake_at') {
        clearTimeout(timer);
        timer = setTimeout(() => apply(t.fastTimeout(Date.now())), Math.max(0, o.at - Date.now()));
      } else if (o.type === 'settled') {
        clearTimeout(timer);
        note.textContent = `Finished: ${o.outcome}`;
      }
    }
  };

  /** @param {import('longcall/lite').TrackerRequest} request a poll or a cancel the core wants sent now */
  async function send(request) {
    const kind = REQUEST_KINDS.indexOf(request.kind);
    const cancel = request.kind === 'cancel';
    /** @type {Response} */
    let r;
    try {
      r = await fetch(
        cancel ? `/v1/jobs/${jobId}/cancel` : `/v1/jobs/${jobId}`,
        cancel ? { method: 'POST', headers: { 'Idempotency-Key': request.idempotencyKey ?? jobId } } : {},
      );
    } catch {
      apply(t.fastRequestFailed(Date.now(), kind, 0, NaN)); // dropped connection: the core decides
      return;
    }
    const body = await r.json().catch(() => null); // a 502 HTML page is not JSON
    if (cancel) {
      // 2xx: the job's status; else the error code (one the core does not know, or none, is `other`).
      apply(t.fastJobCancelAnswered(Date.now(), r.status, r.ok ? body?.status : body?.error?.code));
    } else if (r.ok && typeof body?.status === 'string') {
      apply(t.fastPolled(Date.now(), STATUSES.indexOf(body.status), NaN, 0));
    } else {
      apply(t.fastRequestFailed(Date.now(), kind, r.status, NaN));
    }
  }

  button.onclick = () => apply(t.fastCancelPressed(Date.now()));
  apply(t.fastCreated(jobId, Date.now(), STATUSES.indexOf(status), NaN));
}
