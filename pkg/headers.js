// The request headers of the JavaScript hosts (`longcall/jobs`, `longcall/mcp`): one value per
// header name whatever its case, so a host's own `Content-Type` and the one the core writes with
// every body it builds never go out as two (`fetch` joins them into `application/json,
// application/json`, which body parsers such as Express's refuse, dropping the body).

/**
 * A host's own headers option, read once where it is given: a plain object, a `Headers`, a
 * `Map` or `[name, value]` pairs (an iterator of them too, which can be read only once), as
 * `[name, value]` pairs of strings. A `Headers` read as a plain object has no entries, so it
 * would go out as no headers at all (an API key never sent); anything else is refused by `fail`.
 * @param {unknown} headers
 * @param {string} where what takes it, for the message (`JobHost`)
 * @param {(code: string, message: string) => Error} fail
 * @returns {[string, string][]}
 */
export function ownHeaders(headers, where, fail) {
  if (headers == null) return [];
  const refuse = (/** @type {string} */ got) =>
    fail(
      'invalid_input',
      `${where}: headers must be an object of names and values, a Headers, a Map or [name, value] pairs, got ${got}`,
    );
  if (typeof headers !== 'object') throw refuse(typeof headers);
  const pairs = Symbol.iterator in headers ? [.../** @type {Iterable<unknown>} */ (headers)] : Object.entries(headers);
  if (!pairs.every((p) => Array.isArray(p) && p.length === 2)) throw refuse('other entries');
  return pairs.map(([name, value]) => [String(name), String(value)]);
}

/**
 * The headers of `sources` in order, later ones replacing earlier ones of the same name in any
 * case, each kept as it was spelt; `content-type: application/json` added for a `body` that has
 * none.
 * @param {unknown} body
 * @param {...(Record<string, string> | [string, string][] | null | undefined)} sources
 * @returns {Record<string, string>}
 */
export function mergeHeaders(body, ...sources) {
  /** @type {Map<string, [string, string]>} */
  const byName = new Map();
  for (const source of sources) {
    for (const [name, value] of Array.isArray(source) ? source : Object.entries(source ?? {})) {
      const key = name.toLowerCase();
      byName.delete(key);
      byName.set(key, [name, value]);
    }
  }
  if (body != null && !byName.has('content-type')) byName.set('content-type', ['content-type', 'application/json']);
  return Object.fromEntries(byName.values());
}
