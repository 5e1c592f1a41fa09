// The numbers-only functions and Tracker methods of both client builds, with what each returns
// when it cannot read its arguments (they never throw; runtime.js turns a Symbol, a BigInt or any
// other non-number into a value no code or time can be).
import { BUTTON_STATES, MODELS, OUTCOMES, STATUSES } from './codes.js';

export const NUMERIC_FUNCTIONS = Object.freeze({ observeCode: 255, cancelWindowCode: 255 });
export const FAST_METHODS = Object.freeze({
  fastCreated: -1,
  fastPolled: -1,
  fastTimeout: -1,
  fastCancelPressed: -1,
  fastCancelAnswered: -1,
  fastUpdateAcked: -1,
  fastRequestFailed: -1,
  fastStop: -1,
  fastDrain: -1,
  fastJobCancelAnswered: -1,
});
/** The one text argument of those methods (an id, a Sume error code); the others are numbers. */
export const TEXT_ARGUMENTS = Object.freeze({ fastCreated: 0, fastJobCancelAnswered: 2 });
/**
 * The getters the module answers with a code, and the table that names each: a call's
 * (`Tracker`, `Endpoint`) and a button's.
 */
export const CALL_NAMES = Object.freeze({ model: MODELS, status: STATUSES, button: BUTTON_STATES, outcome: OUTCOMES });
export const BUTTON_NAMES = Object.freeze({ state: BUTTON_STATES });
