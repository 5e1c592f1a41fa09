// The option objects of the JavaScript hosts (`longcall/mcp`, `longcall/jobs`): a key a host does
// not know is refused by name, as the core refuses an unknown key in its own inputs, so a
// misspelt option (`args` for `arguments`) never silently drops what it carried.

/**
 * Throws `fail('invalid_input', message)` when `options` (an object, or null/undefined for none)
 * has an own key not in `known`. The message names the key, suggests a known one it is close
 * to, or the `hints` entry written for it, and lists what is known.
 * @param {unknown} options
 * @param {readonly string[]} known
 * @param {string} where what takes the options, for the message (`callTool`)
 * @param {(code: string, message: string) => Error} fail
 * @param {Record<string, string>} [hints] what to write instead of a key users try
 */
export function checkOptions(options, known, where, fail, hints = {}) {
  if (options === undefined || options === null) return;
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw fail(
      'invalid_input',
      `${where}: options must be an object, got ${Array.isArray(options) ? 'an array' : typeof options}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = Object.hasOwn(hints, key) ? hints[key] : closest(key, known);
    throw fail(
      'invalid_input',
      `${where}: unknown option ${JSON.stringify(key)}${near ? ` (${near})` : ''}; expected one of ${known.join(', ')}`,
    );
  }
}

/**
 * Throws `fail('malformed', message)`, as the core says of what it cannot read as JSON, when
 * `value`, JSON the caller hands over as it is (a tool's or a job's arguments), holds something
 * JSON.stringify would turn into something else without a word: a Map or a Set (`{}`), a function or a symbol (dropped), a number that is not
 * finite (`null`), a class instance. The message names where (`at`).
 * @param {unknown} value
 * @param {string} at
 * @param {(code: string, message: string) => Error} fail
 */
export function checkJson(value, at, fail) {
  const refuse = (where, what) => {
    throw fail(
      'malformed',
      `${where}: ${what} is not JSON; give plain objects, arrays, strings, numbers, booleans and null`,
    );
  };
  // Depth-first, bounded: deeper (or cyclic) JSON is the core's to refuse.
  const walk = (v, where, depth) => {
    // `undefined`: no arguments at all, or an optional member left out, which JSON leaves out.
    if (v == null || typeof v === 'string' || typeof v === 'boolean' || depth > 64) return;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) refuse(where, String(v));
    } else if (typeof v !== 'object') {
      refuse(where, `a ${typeof v}`);
    } else if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, `${where}[${i}]`, depth + 1);
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null)
        refuse(where, `a ${proto?.constructor?.name ?? 'class instance'}`);
      for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`, depth + 1);
    }
  };
  walk(value, at, 0);
}

/**
 * `did you mean "k"?` for the known key closest to `key`: the same but for case and
 * underscores (`on_status`: `onStatus`), else one that starts the other, else the longest shared
 * start of three letters or more (`args`: `arguments`).
 */
function closest(key, known) {
  const flat = (k) => k.replaceAll('_', '').toLowerCase();
  const same = known.find((k) => flat(k) === flat(key));
  if (same) return `did you mean ${JSON.stringify(same)}?`;
  const lower = key.toLowerCase();
  const shared = (k) => {
    let n = 0;
    while (n < k.length && n < lower.length && k[n] === lower[n]) n++;
    return n;
  };
  const ks = known.map((k) => k.toLowerCase());
  let at = ks.indexOf(lower);
  if (at < 0) at = ks.findIndex((k) => lower.length >= 3 && (k.startsWith(lower) || lower.startsWith(k)));
  if (at < 0) {
    const best = Math.max(...ks.map(shared));
    at = best >= 3 ? ks.findIndex((k) => shared(k) === best) : -1;
  }
  return at < 0 ? '' : `did you mean ${JSON.stringify(known[at])}?`;
}

/**
 * True when `value` is an http(s) URL, or in a page a path of the page's origin (`/mcp` behind
 * a dev server's proxy). `URL.canParse` alone is not enough: it reads `localhost:3000` as a URL
 * of the scheme `localhost:`, which fetch then refuses at the first request, where it would read
 * as a request that got no answer.
 * @param {unknown} value
 */
export function isHttpUrl(value) {
  // A path must be written from the root ('/v1'): a relative one ('v1', '') would follow the
  // page's own path, and means nothing outside a page.
  const text = String(value);
  if (!/^[a-z][a-z\d+.-]*:/i.test(text) && !text.startsWith('/')) return false;
  try {
    return /^https?:$/.test(new URL(text, globalThis.location?.href).protocol);
  } catch {
    return false;
  }
}

/**
 * A `Wave`'s `config` with a jitter seed of its own when the caller gave none (api.js, for every
 * `Wave` made), as config.js gives every tracker configuration one (a wave's is read in the
 * module, not there). The core draws
 * every round's jitter from its seed, and the default seed is the same in every process, so
 * waves started together (a fleet of hosts restarted at once) would poll together, every time.
 * A host is where randomness lives: it draws the seed from the platform's source. A caller who
 * gives a seed (to replay a schedule) keeps it; a `config` that is not an object is left for the
 * core to refuse.
 * @template T
 * @param {T} config
 * @returns {T}
 */
export function seeded(config) {
  const plain = config == null || (typeof config === 'object' && !Array.isArray(config));
  if (!plain || config?.seed != null) return config;
  const [hi, lo] = crypto.getRandomValues(new Uint32Array(2));
  // 53 bits: the largest seed a JavaScript number holds exactly.
  return /** @type {T} */ ({ ...config, seed: (hi >>> 11) * 2 ** 32 + lo });
}
