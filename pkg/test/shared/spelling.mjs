// The test data in the repository (scenario vectors, the bad-input catalogue) is the core's
// snake_case; JavaScript callers write camelCase. This is the package's own rule (each `_` that
// is not leading joins the next character in upper case), applied to every key, so it is for
// data whose own JSON payloads either hold no snake_case keys or are compared after the same
// conversion.
export const camelKey = (k) => k.replace(/(?!^)_(.)/g, (_, c) => c.toUpperCase());

// Values nested deeper than longcall reads (its readers refuse them) are left as they are, so a
// deliberately deep bad input reaches longcall instead of overflowing the stack here.
const DEEPEST = 256;

export const camelKeys = (v, depth = 0) =>
  depth > DEEPEST
    ? v
    : Array.isArray(v)
      ? v.map((x) => camelKeys(x, depth + 1))
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [camelKey(k), camelKeys(x, depth + 1)]))
        : v;
