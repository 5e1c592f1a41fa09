// A tiny assert that behaves the same in Node and in the browser (no node:assert in a page).
// Shared case files get it as `ctx.assert`.

export class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AssertionError';
  }
}

function show(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || value === undefined || typeof value === 'symbol' || typeof value === 'bigint')
    return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function fail(message, detail) {
  throw new AssertionError(message ? `${message}: ${detail}` : detail);
}

function deepEqualValues(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a),
    kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqualValues(a[k], b[k]));
}

export const assert = {
  ok(value, message) {
    if (!value) fail(message, `expected a truthy value, got ${show(value)}`);
  },
  equal(actual, expected, message) {
    if (!Object.is(actual, expected)) fail(message, `expected ${show(expected)}, got ${show(actual)}`);
  },
  notEqual(actual, unexpected, message) {
    if (Object.is(actual, unexpected)) fail(message, `did not expect ${show(actual)}`);
  },
  /** Structural equality of plain values (objects, arrays, primitives); key order ignored. */
  deepEqual(actual, expected, message) {
    if (!deepEqualValues(actual, expected)) fail(message, `expected ${show(expected)}, got ${show(actual)}`);
  },
  /**
   * `fn` must throw. `expected` may give `code`, `name`, `instanceOf` and `message` (a string it
   * must contain, or a RegExp). Returns the thrown value.
   */
  throws(fn, expected = {}, message) {
    let thrown,
      threw = false;
    try {
      fn();
    } catch (e) {
      thrown = e;
      threw = true;
    }
    if (!threw) fail(message, 'expected a throw, nothing was thrown');
    const { code, name, instanceOf, message: text } = expected;
    if (instanceOf && !(thrown instanceof instanceOf))
      fail(message, `expected an instance of ${instanceOf.name}, got ${show(thrown)} (${thrown?.name})`);
    if (code !== undefined && thrown?.code !== code)
      fail(message, `expected code ${show(code)}, got ${show(thrown?.code)} (${thrown?.message})`);
    if (name !== undefined && thrown?.name !== name)
      fail(message, `expected name ${show(name)}, got ${show(thrown?.name)}`);
    if (typeof text === 'string' && !String(thrown?.message).includes(text))
      fail(message, `expected message containing ${show(text)}, got ${show(thrown?.message)}`);
    if (text instanceof RegExp && !text.test(String(thrown?.message)))
      fail(message, `expected message matching ${text}, got ${show(thrown?.message)}`);
    return thrown;
  },
};
