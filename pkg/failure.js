// A failed request said in words, the same way by every host of the package (longcall/mcp,
// longcall/jobs): what the core's failure was, and what the transport threw.

/**
 * What a transport failure says, with the causes it wraps: fetch throws "fetch failed" and puts
 * the socket's words (`connect ECONNREFUSED 127.0.0.1:9`) in `cause`.
 */
export function transportDetail(e) {
  const parts = [];
  for (let x = e, depth = 0; x != null && depth < 4; x = x.cause, depth++) {
    // A dual-stack connect failure is an AggregateError with no message of its own.
    const m = typeof x === 'object' ? x.message || x.code || x.errors?.[0]?.message : String(x);
    if (m && !parts.includes(String(m))) parts.push(String(m));
    if (typeof x !== 'object') break;
  }
  return parts.join(': ') || 'no answer';
}

/**
 * What a failed request got (a core `Failure`, camelCase), in words; `detail` is what the
 * exchange itself said when it had no answer (`transportDetail`, or an HTTP page's start).
 */
export function failureText(failure, detail) {
  if (failure.kind === 'rpc') return `answered JSON-RPC error ${failure.error.code}: ${failure.error.message}`;
  if (detail) return `got no answer: ${detail}`;
  if (failure.kind === 'http') return `answered HTTP ${failure.status}${failure.code ? ` (${failure.code})` : ''}`;
  return 'got no answer';
}
