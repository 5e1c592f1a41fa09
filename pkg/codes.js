// Code tables of the numbers-only paths and the helpers that read their outputs, shared by both
// builds (`longcall` and `longcall/lite`); each build's API module binds the helpers to its own
// module memory with makeFast().

/** Models by numeric code (the `modelCode` of the numbers-only exports). */
export const MODELS = Object.freeze(['task-2026', 'task-2025', 'job']);

/** Statuses by numeric code (the `fromCode`/`toCode` of the numbers-only exports). */
export const STATUSES = Object.freeze([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
  'queued',
  'processing',
  'running',
  'canceled',
  'expired',
]);

/** Observation verdicts by the code `observeCode` returns. */
export const OBSERVATIONS = Object.freeze(['advance', 'repeat', 'skipped', 'regression', 'terminal_conflict']);

/** Transition verdicts by numeric code. */
export const TRANSITIONS = Object.freeze(['allowed', 'repeat', 'forbidden', 'from_terminal']);

/** Cancel windows by the code `cancelWindowCode` returns. */
export const WINDOWS = Object.freeze(['open', 'started', 'terminal']);

/** Output kinds of the numbers-only tracker path (the first number of each triple). */
export const OUTPUT_KINDS = Object.freeze([
  'idle',
  'wake_at',
  'send',
  'ask_user',
  'button',
  'status',
  'violation',
  'settled',
  'stopped',
]);

/** Request kinds by code (`send` outputs, `fastRequestFailed`). */
export const REQUEST_KINDS = Object.freeze(['get', 'cancel', 'update', 'fetch_result']);

/** Cancel-button states by code (`button` outputs). */
export const BUTTON_STATES = Object.freeze([
  'unavailable',
  'available',
  'requesting',
  'acknowledged_pending',
  'too_late',
  'cancelled',
  'finished_first',
  'not_applicable',
]);

/** Outcomes by code (`settled` outputs). */
export const OUTCOMES = Object.freeze([
  'succeeded',
  'tool_error',
  'protocol_failure',
  'cancelled',
  'failed',
  'expired',
  'lost',
]);

/** Why watching stopped, by code (`stopped` outputs). */
export const STOP_REASONS = Object.freeze([
  'max_polls',
  'deadline',
  'host_stopped',
  'create_unanswered',
  'answer_too_large',
]);

/** What the numbers-only exports return for input they cannot read. */
export const BAD_CODE = 255;

/**
 * The numbers-only output helpers of one build, bound to that build's `wasmMemory`.
 * @param {() => WebAssembly.Memory} wasmMemory
 */
export function makeFast(wasmMemory) {
  let memory = null;
  let view = new Float64Array(0);

  /**
   * The numbers-only outputs: a `Float64Array` over the module memory. After a `tracker.fast*`
   * call returned `n > 0`, output `i` is `[kind, a, b]` at `out[tracker.fastOffset + 3 * i]` and the
   * two numbers after it. Call this again after every `fast*` call (it is the same array unless the
   * memory grew, which detaches the old one).
   */
  function fastOutputs() {
    if (view.byteLength === 0) {
      memory ??= wasmMemory();
      view = new Float64Array(memory.buffer);
    }
    return view;
  }

  /**
   * Decodes the `n` numbers-only outputs of `tracker` into the objects the structured path returns
   * (a convenience for tests and debugging; hot loops read {@link fastOutputs} directly).
   */
  function decodeFast(tracker, n) {
    const out = fastOutputs();
    const base = tracker.fastOffset;
    const list = [];
    for (let i = 0; i < n; i++) {
      const k = out[base + 3 * i],
        a = out[base + 3 * i + 1],
        b = out[base + 3 * i + 2];
      switch (k) {
        case 0:
          list.push({ type: 'idle' });
          break;
        case 1:
          list.push({ type: 'wake_at', at: a });
          break;
        case 2:
          list.push(
            b >= 0 ? tracker.fastDetail(b) : { type: 'send', request: { kind: REQUEST_KINDS[a], handle: tracker.id } },
          );
          break;
        case 3:
          list.push(tracker.fastDetail(a));
          break;
        case 4:
          list.push({ type: 'button', state: BUTTON_STATES[a] });
          break;
        case 5:
          list.push({ type: 'status', status: STATUSES[a] });
          break;
        case 6:
          list.push(tracker.fastDetail(b));
          break;
        case 7:
          list.push({ type: 'settled', outcome: OUTCOMES[a], status: b === BAD_CODE ? null : STATUSES[b] });
          break;
        case 8:
          list.push({ type: 'stopped', reason: STOP_REASONS[a] });
          break;
        default:
          throw new Error(`unknown output kind ${k}`);
      }
    }
    return list;
  }

  return { fastOutputs, decodeFast };
}
