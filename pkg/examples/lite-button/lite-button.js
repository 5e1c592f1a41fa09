// An honest cancel button for a paid job on `longcall/lite`, the small build (docs/size.md
// gives its bytes): the page moves bytes with fetch and reads the JSON itself; the core's tracker
// decides every poll, every label and what each cancel answer means, through numbers (status
// codes in, output triples out, read with `decodeFast`). The job API is the Sume Open API:
// `GET /v1/jobs/{id}/status`, `POST /v1/jobs/{id}/cancel`, `GET /v1/jobs/{id}/result`.
//
// What lite does not have: it builds and reads no MCP wire messages (a page on lite writes its
// own `tools/call` and `tasks/get` for a 2026 task, as the package's docs/page.md shows,
// and hands the numbers over) and no input requests (`ask_user` needs the JSON reader of
// `longcall`); a page that calls MCP tools with input uses `longcall` (or `longcall/mcp`).
import { REQUEST_KINDS, STATUSES, Tracker, decodeFast, init, jobErrorCode, timerDelay } from 'longcall/lite';

/** @type {Record<import('longcall/lite').ButtonState, string>} */
const LABEL = {
  unavailable: 'Cancel',
  available: 'Cancel',
  requesting: 'Cancelling…',
  acknowledged_pending: 'Cancel requested',
  too_late: 'Still running: too late to cancel',
  cancelled: 'Cancelled',
  finished_first: 'Finished: the cancel came too late',
  not_applicable: 'Done',
};

/** Where the page keeps the .wasm, as the cancel-button example reads it (a meta tag). */
const wasmUrl = () => {
  const url = document.querySelector('meta[name="longcall-wasm"]')?.getAttribute('content');
  return url ? new URL(url, document.baseURI) : undefined;
};

/**
 * An answer of the job API: `{status, body}` (the body read as JSON, or null when it is not
 * JSON, such as a proxy's HTML error page), or `{status: 0}` when no answer came.
 * @param {string} url
 * @param {RequestInit} [init]
 * @returns {Promise<{status: number, body: any, retryAfterMs: number}>}
 */
async function ask(url, init) {
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: the status alone speaks */
    }
    // Retry-After in seconds (the core floors the next request at it); NaN when absent.
    const retryAfterMs = Number(res.headers.get('retry-after') ?? Number.NaN) * 1000;
    return { status: res.status, body, retryAfterMs };
  } catch {
    return { status: 0, body: null, retryAfterMs: Number.NaN };
  }
}

/**
 * Watches job `jobId` on the job API at `baseUrl` and drives `button`; `note` says what
 * happened. Resolves with the core's last output (`settled` or `stopped`).
 * @param {string} baseUrl
 * @param {string} jobId
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} note
 * @param {string} [apiKey] sent as `Authorization: Bearer …` (the job API's owner of the job)
 * @returns {Promise<import('longcall/lite').TrackerOutput>}
 */
export async function watchJob(baseUrl, jobId, button, note, apiKey) {
  await init(wasmUrl());
  const jobUrl = `${baseUrl}/v1/jobs/${encodeURIComponent(jobId)}`;
  /** @type {Record<string, string>} */
  const headers = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  // Lite's numbers-only outputs say nothing of a failed request (the full build's
  // `request_failed` / `recovered`): the page says the server is not answering itself, and
  // takes it back at the next poll answered.
  let failing = false;
  // A 30 s cap on the wait between polls would hide a short processing phase: 5 s here.
  const t = new Tracker('job', { poll: { capMs: 5_000 } });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {(end: import('longcall/lite').TrackerOutput) => void} */
  let finish = () => {};
  const ended = new Promise((ok) => {
    finish = ok;
  });

  /** @param {import('longcall/lite').ButtonState} state */
  const show = (state) => {
    // Back to `available` from `requesting`: the cancel got no answer that settles it (a 5xx, a
    // dropped connection, a code the core does not know, a 200 that names no status). It may not
    // have arrived, or have arrived unanswered: the next status tells.
    if (button.dataset.state === 'requesting' && state === 'available')
      note.textContent = 'The cancel got no clear answer: it may not have arrived. Try again.';
    else if (state === 'requesting') note.textContent = '';
    button.textContent = LABEL[state];
    button.disabled = state !== 'available';
    button.dataset.state = state;
  };

  /**
   * Acts on the `n` outputs a numbers-only call returned (-1: the core refused the input, and
   * `t.lastError` says why).
   * @param {number} n
   */
  const act = (n) => {
    if (n < 0) {
      note.textContent = `Refused: ${t.lastError}`;
      return;
    }
    for (const o of decodeFast(t, n)) {
      if (o.type === 'button') show(o.state);
      else if (o.type === 'send' && o.request.kind === 'get') poll();
      else if (o.type === 'send' && o.request.kind === 'cancel') sendCancel();
      else if (o.type === 'wake_at') {
        clearTimeout(timer);
        timer = setTimeout(() => act(t.fastTimeout(Date.now())), timerDelay(o.at, Date.now()));
      } else if (o.type === 'settled' || o.type === 'stopped') {
        clearTimeout(timer);
        finish(o);
      }
    }
  };

  const GET = REQUEST_KINDS.indexOf('get');
  /**
   * A poll's answer: the job's status as a code, or the failure as the core reads failures (with
   * the API's error code: only a 404 that says `not_found` loses the job, a proxy's page does not).
   */
  const poll = async () => {
    const a = await ask(`${jobUrl}/status`, { headers });
    const ok = a.status >= 200 && a.status < 300;
    const code = STATUSES.indexOf(a.body?.data?.sume_status);
    const answered = ok && code >= 0;
    // Said once at the first failed poll, taken back at the first answered one after.
    if (answered === failing) {
      failing = !answered;
      note.textContent = failing ? 'The job server is not answering; trying again…' : '';
    }
    if (answered) act(t.fastPolled(Date.now(), code, Number.NaN, 0));
    // A 2xx that names no status the core knows says nothing: read as no answer (0), so the
    // poll goes again after its backoff rather than never.
    else
      act(t.fastRequestFailed(Date.now(), GET, ok ? 0 : a.status, a.retryAfterMs, jobErrorCode(a.body?.error?.code)));
  };

  /**
   * The cancel's answer as it arrived: the job's status on a 2xx (undefined when the body names
   * none, as a proxy's HTML page: that proves nothing, and the next poll decides), else the
   * error's code.
   */
  const sendCancel = async () => {
    const a = await ask(`${jobUrl}/cancel`, { method: 'POST', headers });
    const said = a.status >= 200 && a.status < 300 ? a.body?.data?.sume_status : a.body?.error?.code;
    act(t.fastJobCancelAnswered(Date.now(), a.status, said));
  };

  button.onclick = () => act(t.fastCancelPressed(Date.now()));

  // The first poll decides where the job stands (no status is assumed).
  const first = await ask(`${jobUrl}/status`, { headers });
  const status = first.body?.data?.sume_status;
  if (typeof status !== 'string') {
    note.textContent = `Could not read job ${jobId}: HTTP ${first.status || 'no answer'}`;
    return { type: 'stopped', reason: 'host_stopped' };
  }
  act(t.fastCreated(jobId, Date.now(), STATUSES.indexOf(status), Number.NaN));

  const end = await ended;
  // The tracker is gone after free(): nothing may reach it any more.
  button.onclick = null;
  t.free();
  if (end.type === 'settled' && end.outcome === 'succeeded') {
    const r = await ask(`${jobUrl}/result`, { headers });
    const url = r.body?.data?.result?.artifacts?.[0]?.url;
    note.textContent = url ? `Finished: ${url}` : 'Finished: succeeded';
  } else if (end.type === 'settled') note.textContent = `Finished: ${end.outcome}`;
  else if (end.type === 'stopped') note.textContent = `Stopped watching: ${end.reason}`;
  return end;
}
