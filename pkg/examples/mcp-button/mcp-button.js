// An honest cancel button for an MCP tool run as a task (the 2026 tasks extension), on
// `longcall/mcp`: the core decides every poll, every label, whether a cancel may go out and what
// its answer means, and asks each input once; `httpSender` moves bytes with the page's fetch.
import { init } from 'longcall';
import { callTool, httpSender } from 'longcall/mcp';

/** What the button says in each state the core gives it. */
/** @type {Record<import('longcall').ButtonState, string>} */
const LABEL = {
  unavailable: 'Cancel', // disabled: no task yet, or no longer watched (lost, stopped)
  available: 'Cancel', // working or waiting for input: the server may still stop it
  requesting: 'Cancelling…', // tasks/cancel is out
  acknowledged_pending: 'Cancel requested', // the server accepted it; the task has not ended yet
  too_late: 'Too late to cancel', // a paid job's state; a task never says it
  cancelled: 'Cancelled', // a poll saw the task cancelled
  finished_first: 'Finished first', // it ended before the cancel took effect
  not_applicable: 'Done', // ended with no cancel pressed
};

/** The .wasm's URL from `<meta name="longcall-wasm">` (a bundler that does not copy it), if any. */
const wasmUrl = () => {
  const url = document.querySelector('meta[name="longcall-wasm"]')?.getAttribute('content');
  return url ? new URL(url, document.baseURI) : undefined;
};

/**
 * Shows an elicitation's message with Yes and No in `box`; resolves with the person's answer
 * (an elicitation result: the server reads `action` and `content`), or closes when `signal`
 * says the question was withdrawn (the server took a cancel, or the call ended).
 * @param {HTMLElement} box
 * @param {import('longcall').Json} request
 * @param {AbortSignal} signal
 * @returns {Promise<{[key: string]: import('longcall').Json}>}
 */
function askInPage(box, request, signal) {
  const params = /** @type {{message?: string, requestedSchema?: {properties?: object}}} */ (
    typeof request === 'object' && request !== null && !Array.isArray(request) ? (request.params ?? {}) : {}
  );
  const field = Object.keys(params.requestedSchema?.properties ?? {})[0] ?? 'confirm';
  const message = document.createElement('p');
  message.textContent = params.message ?? 'The tool asks for confirmation.';
  const yes = document.createElement('button');
  const no = document.createElement('button');
  yes.type = no.type = 'button';
  yes.textContent = 'Yes';
  no.textContent = 'No';
  box.replaceChildren(message, yes, no);
  box.hidden = false;
  return new Promise((resolve) => {
    /** @param {{[key: string]: import('longcall').Json}} answer */
    const done = (answer) => {
      box.hidden = true;
      box.replaceChildren();
      resolve(answer);
    };
    yes.onclick = () => done({ action: 'accept', content: { [field]: true } });
    no.onclick = () => done({ action: 'decline' });
    signal.addEventListener('abort', () => done({ action: 'cancel' }), { once: true });
  });
}

/**
 * The text a tool result carries (`content` items of type `text`), for the note. The list is
 * checked: a server that breaks MCP may send none (a violation says so).
 * @param {import('longcall/mcp').ToolResult | undefined} result
 */
const textOf = (result) =>
  Array.isArray(result?.content) ? result.content.map((c) => (c?.type === 'text' ? c.text : '')).join(' ') : '';

/**
 * Calls tool `name` with `args` on the MCP server at `url` as a task and drives the page: the
 * cancel `button`, the `note` (status and ending), the task's words in `progress`, and an input
 * request in `ask`.
 * @param {string} url the MCP endpoint; a path of the page's own origin ('/mcp') avoids CORS
 * @param {string} name
 * @param {{[key: string]: import('longcall').Json}} args
 * @param {{button: HTMLButtonElement, note: HTMLElement, progress: HTMLElement, ask: HTMLElement}} el
 */
export async function runTool(url, name, args, el) {
  await init(wasmUrl());
  const { button, note, progress, ask } = el;
  /** @param {import('longcall').ButtonState} state */
  const show = (state) => {
    // Back to `available` from `requesting`: the cancel got no answer (the server is down, a
    // 5xx). Nothing was cancelled; it may be pressed again.
    if (button.dataset.state === 'requesting' && state === 'available')
      note.textContent = 'The cancel did not go through; the task goes on. Try again.';
    button.textContent = LABEL[state];
    button.disabled = state !== 'available';
    button.dataset.state = state;
  };
  show('unavailable');
  note.textContent = 'Starting…';
  const h = await callTool(httpSender({ url }), {
    name,
    arguments: args,
    onButton: show,
    onStatus: (status) => {
      note.textContent = status === 'input_required' ? 'Waiting for your answer' : `Status: ${status}`;
    },
    onProgress: (message) => {
      progress.textContent = message;
    },
    onInput: async (_key, request, { signal }) => {
      const answer = await askInPage(ask, request, signal);
      if (!signal.aborted) note.textContent = 'Answer sent';
      return answer;
    },
    onRequestFailed: () => {
      note.textContent = 'The server is not answering; trying again…';
    },
    onRecovered: () => {
      note.textContent = 'The server answers again.';
    },
  });
  button.onclick = () => {
    // The core sends tasks/cancel (the button shows its answer), or refuses: nothing goes out.
    h.cancel().catch((e) => {
      note.textContent = `Not sent: ${/** @type {{code?: string}} */ (e).code ?? e}`;
    });
  };
  try {
    const { outcome, result } = await h.outcome;
    note.textContent = `Finished: ${outcome}`;
    progress.textContent = textOf(result);
    return outcome;
  } catch (e) {
    // `create_unanswered` (the tool may have started: never call it again blindly) or
    // `watch_stopped` (the task goes on): the message says which.
    note.textContent = /** @type {Error} */ (e).message;
    return null;
  } finally {
    ask.hidden = true;
  }
}
