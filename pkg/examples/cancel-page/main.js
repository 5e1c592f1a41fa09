// The cancel-button page: the longcall core (browser entry of the npm package) drives both panels.
// Every button label and state comes from the core's `button` output; this file only maps a state
// to words and colours, sends what the core says to send, and feeds answers back.
//
// What this file still decides: (a) the render wave runs on the core's Wave, but its jobs live in
// a JobBook inside the page (no HTTP), so `sendJobCancel` turns the book's answer into the
// tracker's cancel answer by hand (`{kind: 'job' | 'job_error', ...}`; the error code is read by
// the core's `jobErrorCode`); with a real job API the Endpoint's `handleHttp` would read it;
// (b) the MCP task panel decides nothing beyond transport: an exchange that ended without an
// answer to its request is a transport failure.
import { init, Endpoint, Wave, jobErrorCode, JOB_ERROR_CODES, timerDelay } from '../../web.js';
import { init as initServer, JobBook } from '../../server-web.js';

// Nothing is fetched until asked: load both modules before the first call.
await Promise.all([init(), initServer()]);

const q = new URLSearchParams(location.search);
const WORK_MS = Number(q.get('work') ?? 3000); // how long the simulated worker takes per job
const ROUND_MS = Number(q.get('round') ?? 250); // pause between jobs_wait rounds
const TASK_SECONDS = Number(q.get('seconds') ?? 8); // slow_compute duration

/** Words for the core's button states (the state itself is never computed here). */
const LABEL = {
  unavailable: '—',
  available: 'Cancel',
  requesting: 'Cancelling…',
  acknowledged_pending: 'Cancel requested',
  too_late: 'Still running',
  cancelled: 'Cancelled',
  finished_first: 'Finished first',
  not_applicable: 'Nothing to cancel',
};
const NOTE = {
  too_late: 'Generation already started: it runs to completion and bills.',
  acknowledged_pending: 'The server acknowledged; cancellation is cooperative, so the task may still finish.',
  finished_first: 'It finished before the cancel took effect.',
};

function paintButton(el, state, history) {
  el.dataset.state = state;
  el.textContent = LABEL[state] ?? state;
  el.setAttribute('aria-disabled', String(state !== 'available'));
  if (history && history.at(-1) !== state) history.push(state);
}

// ---- (a) the render wave: a JobBook in the page ----------------------------------------------

const OWNER = { workspace: 'studio', member: 'me' };
const book = new JobBook({ concurrencyPerWorkspace: 2, queueLimitPerWorkspace: 20 });
const rows = new Map(); // id -> { tr, button, history, sent, refused, timer, progress }
const tbody = document.getElementById('jobs');
const waveNote = document.getElementById('wave-note');
// One Wave watches every job with jobs_wait rounds; each job's button, status and outcome come
// from the core tracker the wave keeps for it.
const wave = new Wave({ waitFor: 'all', minRoundIntervalMs: ROUND_MS, timeoutSeconds: 50 });
let waveTimer;

function applyJob(row, o) {
  if (o.type === 'button') paintButton(row.button, o.state, row.history);
  else if (o.type === 'status') {
    row.tr.dataset.state = o.status;
    row.status.textContent = o.status;
  } else if (o.type === 'settled') row.tr.dataset.outcome = o.outcome;
  else if (o.type === 'send' && o.request.kind === 'cancel') sendJobCancel(row, o.request);
  else if (o.type === 'violation') console.warn('violation', row.id, o.violation);
  row.button.dataset.history = row.history.join(',');
}

/** Does what the wave's outputs say: send jobs_wait calls, paint jobs, sleep until wake_at. */
function applyWave(outputs) {
  for (const o of outputs) {
    if (o.type === 'job') applyJob(rows.get(o.id), o.output);
    else if (o.type === 'wait') queueMicrotask(() => sendWait(o.callId, o.call));
    else if (o.type === 'satisfied') {
      waveNote.textContent = 'All jobs settled.';
      document.getElementById('wave').dataset.done = '1';
    } else if (o.type === 'ignored') console.warn('ignored', o.id, o.reason);
    else if (o.type === 'wake_at') {
      clearTimeout(waveTimer);
      waveTimer = setTimeout(() => applyWave(wave.handleTimeout(Date.now())), timerDelay(o.at, Date.now()));
    }
  }
}

// One jobs_wait call (its body is the wave's `call`, as the wire spells it), answered by the book.
function sendWait(callId, call) {
  const now = Date.now();
  const a = book.wait(now, OWNER, call.job_ids, call.wait_for, call.include_results);
  if (!a.ok) {
    waveNote.textContent = `jobs_wait failed: ${a.error.code}`;
    applyWave(wave.handleWaitFailed(now, callId, { kind: 'http', status: a.error.httpStatus }));
    return;
  }
  const jobs = a.value.jobs.filter((e) => e.kind === 'job').map((e) => e.job);
  waveNote.textContent = `jobs_wait round ${wave.roundsSent}: ${call.job_ids.length} job(s)`;
  applyWave(wave.handleWaitAnswer(now, callId, jobs));
}

// jobs_cancel, answered by the book; the answer goes back to the job's tracker in the wave.
function sendJobCancel(row, request) {
  row.sent += 1;
  row.tr.dataset.cancelSent = String(row.sent);
  const now = Date.now();
  const a = book.cancel(now, OWNER, request.handle, request.idempotencyKey ?? null);
  const answer = a.ok
    ? { kind: 'job', status: a.value.status }
    : // A code the core does not know reads as `other` (jobErrorCode decides, not this page).
      {
        kind: 'job_error',
        httpStatus: a.error.httpStatus,
        code: JOB_ERROR_CODES[jobErrorCode(a.error.code)],
        cancelable: a.error.details?.cancelable ?? null,
      };
  row.note.textContent = a.ok
    ? `jobs_cancel → ${a.value.status}`
    : `jobs_cancel → ${a.error.httpStatus} ${a.error.code}`;
  queueMicrotask(() => {
    applyWave(wave.handleJobInput(Date.now(), row.id, { type: 'cancel_answered', answer }));
    afterChange();
  });
}

function pressJob(row) {
  try {
    applyWave(wave.pressCancel(Date.now(), row.id));
  } catch (e) {
    // The core refused the press (not available): nothing goes on the wire.
    row.refused += 1;
    row.tr.dataset.refused = String(row.refused);
    row.note.textContent = `press refused (${e.code}): ${LABEL[row.button.dataset.state] ?? ''}`;
    row.note.classList.add('refused');
  }
}

// The simulated worker: a started job completes WORK_MS later.
function startWorker(id) {
  const row = rows.get(id);
  const t0 = Date.now();
  row.progressTimer = setInterval(() => {
    row.bar.style.width = `${Math.min(100, ((Date.now() - t0) / WORK_MS) * 100)}%`;
  }, 100);
  row.timer = setTimeout(() => {
    clearInterval(row.progressTimer);
    book.complete(Date.now(), id, { url: `https://cdn.example/render/${id}.png` });
    afterChange();
  }, WORK_MS);
}

function afterChange() {
  for (const id of book.dispatch(Date.now())) startWorker(id);
}

function startWave() {
  const now = Date.now();
  for (let i = 1; i <= 6; i++) {
    const id = `job-${i}`;
    const tr = document.createElement('tr');
    tr.dataset.job = id;
    tr.innerHTML = `<td><code>${id}</code><div class="bar"><i></i></div></td><td><span class="pill status">—</span></td>
      <td><button class="cancel" data-state="unavailable">—</button></td><td class="note"></td>`;
    tbody.append(tr);
    const row = {
      id,
      tr,
      button: tr.querySelector('button'),
      status: tr.querySelector('.status'),
      note: tr.querySelector('td.note'),
      bar: tr.querySelector('.bar > i'),
      history: [],
      sent: 0,
      refused: 0,
    };
    tr.dataset.cancelSent = '0';
    tr.dataset.refused = '0';
    rows.set(id, row);
    row.button.addEventListener('click', () => pressJob(row));
    const a = book.submit(now, OWNER, id, `submit-${id}`); // queue-first: `queued` is normal
    if (!a.ok) {
      row.note.textContent = `submit → ${a.error.code}`;
      continue;
    }
    applyWave(wave.addJob(now, { id: a.value.id, status: a.value.status }));
  }
  afterChange();
  document.getElementById('wave').dataset.ready = '1';
  applyWave(wave.handleTimeout(Date.now()));
}

// ---- (b) an MCP task on the reference server (2026 wire), through the core's endpoint ----------
// The endpoint builds every request (headers and capability `_meta` included) and reads every
// answer as it arrived; this panel POSTs what it says and paints what it reports.

const logEl = document.getElementById('log');
const log = (line) => {
  logEl.textContent += `${new Date().toISOString().slice(11, 23)} ${line}\n`;
  logEl.scrollTop = logEl.scrollHeight;
};

const panel = document.getElementById('task');
const taskButton = document.getElementById('task-cancel');
const taskNote = document.getElementById('task-note');
const taskHistory = [];
let ep = null;
let wake = null;

function drive(events) {
  for (const e of events) {
    switch (e.type) {
      case 'transmit':
        if (e.kind === 'rpc') send(e);
        break;
      case 'button':
        paintButton(taskButton, e.state, taskHistory);
        panel.dataset.button = e.state;
        taskButton.dataset.history = taskHistory.join(',');
        taskNote.textContent = NOTE[e.state] ?? '';
        break;
      case 'status':
        panel.dataset.state = e.status;
        document.getElementById('task-id').textContent = ep.id ?? '';
        document.getElementById('task-status').textContent = e.status;
        break;
      case 'settled':
        panel.dataset.outcome = e.outcome;
        if (!ep.id) document.getElementById('task-id').textContent = '(sync result)';
        document.getElementById('task-outcome').textContent = `${e.outcome} (${e.status ?? '—'})`;
        if (e.error) log(`error ${e.error.code}: ${e.error.message}`);
        break;
      case 'wake_at':
        clearTimeout(wake);
        wake = setTimeout(() => drive(ep.handleTimeout(Date.now())), timerDelay(e.at, Date.now()));
        break;
      case 'violation':
        log(`violation ${e.violation.rule}: ${e.violation.detail}`);
        break;
      default:
        break;
    }
  }
}

/** POSTs one request exactly as the endpoint built it; the answer goes back as it arrived. */
async function send({ id, text, headers }) {
  let res, body;
  try {
    res = await fetch('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: text,
    });
    body = await res.text();
  } catch {
    log(`${headers['Mcp-Method'] ?? 'request'} ${id} → no answer`);
    drive(ep.handleTransportFailure(Date.now(), id));
    return;
  }
  log(`${headers['Mcp-Method'] ?? 'request'} ${id} → HTTP ${res.status}`);
  // The HTTP answer whole (rule E-67): the core reads a JSON or event-stream body, and a 429's or
  // 503's Retry-After; if nothing in it answers request `id`, the core counts it unanswered.
  drive(ep.handleHttpAnswer(Date.now(), id, { status: res.status, headers: [...res.headers] }, body));
}

document.getElementById('start').addEventListener('click', (ev) => {
  ev.target.disabled = true;
  ep = Endpoint.callTool(
    'task-2026',
    'slow_compute',
    { seconds: TASK_SECONDS, label: 'cancel-page' },
    { config: { poll: { jitter: 'none', initialMs: 500 } } },
  );
  drive(ep.pollEvents());
});

taskButton.addEventListener('click', () => {
  if (!ep) return;
  try {
    drive(ep.pressCancel(Date.now()));
  } catch (e) {
    taskNote.textContent = `press refused (${e.code})`;
    panel.dataset.refused = String(Number(panel.dataset.refused ?? 0) + 1);
  }
});

startWave();
document.body.dataset.ready = '1';
