// The request headers of the JavaScript hosts (`longcall/jobs`, `longcall/mcp`): one value per
// header name whatever its case, so a host's own `Content-Type` and the one the core writes with
// every body it builds never go out as two (`fetch` joins them into `application/json,
// application/json`, which body parsers such as Express's refuse, dropping the body).

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
