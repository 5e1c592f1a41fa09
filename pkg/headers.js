// The request headers of the JavaScript hosts (`longcall/jobs`, `longcall/mcp`): one value per
// header name whatever its case, so a host's own `Content-Type` and the one the core writes with
// every body it builds never go out as two (`fetch` joins them into `application/json,
// application/json`, which body parsers such as Express's refuse, dropping the body).

/**
 * A host's own headers option checked where it is given: a plain object, a `Headers`, a `Map` or
 * `[name, value]` pairs. A `Headers` read as a plain object has no entries, so it would go out
 * as no headers at all (an API key never sent); anything else is refused by `fail`.
 * @param {unknown} headers
 * @param {string} where what takes it, for the message (`JobHost`)
 * @param {(code: string, message: string) => Error} fail
 */
export function checkHeaders(headers, where, fail) {
  if (headers == null) return;
  const pairs = typeof headers === 'object' && Symbol.iterator in headers;
  if (typeof headers !== 'object' || (pairs && ![...headers].every((p) => Array.isArray(p) && p.length === 2)))
    throw fail(
      'invalid_input',
      `${where}: headers must be an object of names and values, a Headers, a Map or [name, value] pairs, got ${typeof headers === 'object' ? 'other entries' : typeof headers}`,
    );
}

/** The `[name, value]` pairs of headers given as {@link checkHeaders} takes them. */
const entries = (source) =>
  source == null
    ? []
    : Symbol.iterator in source
      ? Array.from(source, ([name, value]) => [String(name), String(value)])
      : Object.entries(source).map(([name, value]) => [name, String(value)]);

/**
 * The headers of `sources` in order, later ones replacing earlier ones of the same name in any
 * case, each kept as it was spelt; `content-type: application/json` added for a `body` that has
 * none.
 * @param {unknown} body
 * @param {...(Record<string, string> | Iterable<[string, string]> | null | undefined)} sources
 * @returns {Record<string, string>}
 */
export function mergeHeaders(body, ...sources) {
  /** @type {Map<string, [string, string]>} */
  const byName = new Map();
  for (const source of sources) {
    for (const [name, value] of entries(source)) {
      const key = name.toLowerCase();
      byName.delete(key);
      byName.set(key, [name, value]);
    }
  }
  if (body != null && !byName.has('content-type')) byName.set('content-type', ['content-type', 'application/json']);
  return Object.fromEntries(byName.values());
}
