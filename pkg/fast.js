// The numbers-only output helpers of both client builds, bound to each build's module memory.
import { BAD_CODE, BUTTON_STATES, OUTCOMES, REQUEST_KINDS, STATUSES, STOP_REASONS } from './codes.js';
import { coded } from './runtime.js';

/** How many outputs one numbers-only call writes at most (FAST_CAPACITY in tracker.rs). */
const FAST_CAPACITY = 64;

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
    if (!Number.isInteger(n) || n < 0 || n > FAST_CAPACITY) {
      throw coded('invalid_input', `decodeFast: n must be an output count from 0 to ${FAST_CAPACITY}`);
    }
    const base = tracker.fastOffset;
    const out = fastOutputs();
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
          throw coded('invalid_input', `decodeFast: no output of kind ${k} here`);
      }
    }
    return list;
  }

  return { fastOutputs, decodeFast };
}
