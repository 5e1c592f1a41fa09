// The tracker configuration `{poll?: {initialMs?, multiplierPercent?, capMs?, jitter?,
// minIntervalMs?, maxPolls?, followServerInterval?}, seed?, deadlineMs?}`, read here for every
// entry point that takes one (`Tracker` in `longcall` and `longcall/lite`, `Endpoint`, the watch
// list of `longcall/store`) and handed to the module as the nine numbers it takes
// (bindings/wasm/src/config.rs): the `poll` keys, then `seed` and `deadlineMs`, NaN for a key not
// given. This side checks the shape, which JavaScript can tell: a key not listed is
// `invalid_config` naming it (a misspelt key must never fall back to a default without a word),
// a value of the wrong type is `malformed`. The module checks the values (whole numbers up to
// 2^53-1, then the policy's limits). Known keys are read wherever they are (inherited, not
// enumerable); unknown ones are looked for among the object's own enumerable keys.
import { CONFIG_KEYS, JITTERS, POLL_KEYS } from './codes.js';
import { checkOptions } from './options.js';
import { coded, isLongcallError } from './runtime.js';

const describe = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const malformed = (name, reason) => coded('malformed', `malformed config: ${name}: ${reason}`);
const absent = (v) => v == null;

function object(v, name) {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw malformed(name, `expected an object, got ${describe(v)}`);
}

const flat = (k) => k.replaceAll('_', '').toLowerCase();

function onlyKnown(o, known, path) {
  for (const key of Object.keys(o)) {
    if (known.includes(key)) continue;
    // The same key but for case and underscores (`capMS`, `deadline_ms`) is told by name.
    const near = known.find((k) => flat(k) === flat(key));
    throw coded(
      'invalid_config',
      `invalid configuration: ${path}${key}: unknown key${near ? ` (did you mean "${near}"?)` : ''}; expected one of ${known.join(', ')}`,
    );
  }
}

// One value as the module takes it: NaN is "not given"; a jitter is its position in `JITTERS`,
// a boolean 0 or 1; a NaN given is sent as -1, which the module refuses as it refuses any number
// that is not a whole one.
function value(v, name, kind) {
  if (absent(v)) return NaN;
  if (kind === 'jitter') {
    const at = JITTERS.indexOf(v);
    if (at < 0) throw malformed(name, `expected one of ${JITTERS.join(', ')}`);
    return at;
  }
  if (typeof v !== kind) throw malformed(name, `expected a ${kind}, got ${describe(v)}`);
  return Number.isNaN(v) ? -1 : +v;
}

/**
 * The nine numbers of a tracker configuration (`undefined` or `null`: the defaults).
 * @param {unknown} config
 * @returns {number[]}
 */
export function trackerConfig(config) {
  // A seed of its own unless the caller gives one (to replay a schedule): the core draws every
  // poll's jitter from it, and one default seed would have every tracker in every page and
  // process poll on the same schedule, together. The host is where randomness lives; jitter
  // needs no more than `Math.random`'s.
  const out = [NaN, NaN, NaN, NaN, NaN, NaN, NaN, (Math.random() * 1e9) | 0, NaN];
  if (absent(config)) return out;
  // What is being read, for a getter or proxy that throws: `cannot be read`, naming it.
  let reading = 'config';
  try {
    object(config, 'config');
    onlyKnown(config, CONFIG_KEYS, '');
    reading = 'poll';
    const poll = config.poll;
    if (!absent(poll)) {
      object(poll, 'poll');
      onlyKnown(poll, POLL_KEYS, 'poll.');
      for (let i = 0; i < POLL_KEYS.length; i++) {
        const key = POLL_KEYS[i];
        const v = poll[key];
        // Named by its path, as the module names the values it refuses (`poll.capMs`).
        const name = (reading = `poll.${key}`);
        out[i] = value(v, name, key === 'jitter' ? key : key === 'followServerInterval' ? 'boolean' : 'number');
      }
    }
    // Then the numbers of the config itself (`seed`, `deadlineMs`).
    for (let i = 1; i < CONFIG_KEYS.length; i++) {
      const key = (reading = CONFIG_KEYS[i]);
      if (!absent(config[key])) out[POLL_KEYS.length + i - 1] = value(config[key], key, 'number');
    }
  } catch (e) {
    throw isLongcallError(e) ? e : malformed(reading, 'cannot be read');
  }
  return out;
}

/** Reads the configuration at argument `at` of a call in place (runtime.js `bind`'s `prepare`). */
export const configAt = (at) => (args) => {
  args[at] = trackerConfig(args[at]);
};

/** The keys of `Endpoint.callTool`'s options object, in the order of its positional arguments. */
const CALL_TOOL_OPTIONS = ['ttlMs', 'config', 'wire', 'now'];

/**
 * `Endpoint.callTool(model, name, args, {ttlMs, config, wire, now})`: the options object laid out
 * as the positional arguments the module takes (an object is no TTL, so the two forms cannot be
 * mistaken), an unknown key refused by name; then the configuration read as `configAt(4)` does.
 */
export function callToolArgs(args) {
  const options = args[3];
  if (args.length === 4 && options !== null && typeof options === 'object') {
    checkOptions(options, CALL_TOOL_OPTIONS, 'Endpoint.callTool', coded);
    args.length = 3;
    for (const key of CALL_TOOL_OPTIONS) args.push(options[key] ?? null);
  }
  args[4] = trackerConfig(args[4]);
}
