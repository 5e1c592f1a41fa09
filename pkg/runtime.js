// What every build (`longcall`, `longcall/lite`, `longcall/server`) puts between the page and the
// wasm-bindgen glue, so the JavaScript surface keeps the core's promise that every thrown error
// is an `Error` with a `code`:
//
// * loading under the caller's control: `init(input?)` (URL, `Response` or a promise of one,
//   bytes, a compiled `WebAssembly.Module`) and `initSync(bytes | module)`; any call before
//   the module is ready throws `not_initialized` instead of a TypeError from inside the glue;
// * lifetimes: `free()` is idempotent, a call on a freed instance throws `freed`, a method
//   called without its instance (`onclick = b.press`) throws `unbound`;
// * numbers-only functions never throw: a value that is not a number (Symbol, BigInt, an object
//   whose valueOf throws) reaches the module as a number no code or time can be, so they return
//   their "cannot read" answer (255, or -1 with `lastError`);
// * anything else the glue throws without a code (a wrong type for a typed parameter) becomes
//   `invalid_input`, its message cut short.

import { ERROR_CODES } from './codes.js';

/** The error codes of the JavaScript layer (the core's own codes come from the module). */
export const HOST_ERROR_CODES = /* @__PURE__ */ Object.freeze(['not_initialized', 'freed', 'unbound']);

// Long enough for a refusal that lists every expected key; the module quotes input short already.
const MAX_MESSAGE = 300;

/** An `Error` with a `code`, as every export throws. */
export function coded(code, message) {
  const e = new Error(message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}\u2026` : message);
  e.code = code;
  return e;
}

// setTimeout's longest delay (2^31-1 ms, about 24.8 days): a longer one fires at once, with a
// warning, so a server's 30-day Retry-After would spin a host that passed it through.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The `setTimeout` delay for a `wake_at` output: `at - now`, never below 0 and never above
 * setTimeout's limit of 2^31-1 ms (0 when either is not a number). A wake-up further away fires early; `handleTimeout` before
 * the time changes nothing and gives the same `wake_at` again, which arms the next timer.
 */
export function timerDelay(at, now) {
  const delay = at - now;
  // A time that is no number gives NaN, which setTimeout runs at once: said as 0.
  return delay > 0 ? Math.min(delay, MAX_TIMER_MS) : 0;
}

/** True for an `Error` thrown by longcall: its `code` is one of `ERROR_CODES`. */
export function isLongcallError(e) {
  return e instanceof Error && ERROR_CODES.includes(e.code);
}

function recode(e) {
  if (isLongcallError(e)) return e;
  const text = e instanceof Error ? e.message : String(e);
  // The glue's own guard against re-entering an instance from inside one of its calls (a
  // toJSON or getter that calls back into the same object).
  if (/recursive use of an object/.test(text))
    return coded('invalid_input', 'this instance is busy: called again from inside one of its own calls');
  return coded('invalid_input', text);
}

// A failed load is `not_initialized` with the platform's error as `cause` and its message whole
// (the platform's text, not the caller's input, so not cut short), led by what to do about the
// failures a page meets first: a Content-Security-Policy without 'wasm-unsafe-eval', a URL
// that answered 404 or an HTML page (the .wasm not where the page looked: a bundler copies it
// only when it is imported), and the .wasm of another entry point (`wrongModule`: its imports
// did not link, or it linked and then did not work).
function loadFailed(what, e, file, entry, wrongModule) {
  const text = String(e?.message ?? e);
  const hint = /Content.Security.Policy|unsafe-eval/i.test(text)
    ? " (the page's Content-Security-Policy must allow WebAssembly: add 'wasm-unsafe-eval' to script-src)"
    : /fetch Wasm: 404|found 3c (21|68)/i.test(text)
      ? ` (the URL did not answer ${file}: pass init() its URL, in a bundle from import wasmUrl from '${entry}/wasm', which has it copied; under Vite's dev server, exclude longcall from optimizeDeps)`
      : wrongModule
        ? ` (is this ${file}? each entry point loads its own .wasm)`
        : '';
  const err = new Error(`the longcall module could not be ${what}${hint}: ${text}`, { cause: e });
  err.code = 'not_initialized';
  return err;
}

// A numbers-only argument as the module may take it: a number as it is, `undefined` and `null`
// as NaN (an omitted optional number: the wire writes a missing `pollIntervalMs` as null too),
// anything else (a string too: '1000' is not a time) as -0.5, which is no code (not an integer),
// no time and no JSON-RPC error code, so the function gives its "cannot read" answer. The text
// arguments among them (`textArguments`: an id, a Sume error code) go as they are.
const num = (v) => (typeof v === 'number' ? v : v == null ? NaN : -0.5);
const arg = (v, text) => (text ? v : num(v));

const STATES = new WeakMap();

/**
 * Binds one build's glue module. `numeric` names the free functions and methods that take only
 * numbers and never throw (with the value they return when called wrongly). `prepare[Class][member]`
 * (`new` for the constructor) rewrites a call's arguments in place before the module sees them
 * (config.js lays a tracker configuration out as numbers), throwing a coded error to refuse them.
 * `names[Class][getter]` is the code table of a getter the module answers with a code.
 */
export function bind(
  glue,
  { entry, file, numeric = {}, numericMethods = {}, textArguments = {}, prepare = {}, names = {} } = {},
) {
  let state = STATES.get(glue);
  if (state) return state;
  let ready = false;
  let loading = null;
  const check = () => {
    if (!ready)
      throw coded(
        'not_initialized',
        `the longcall module is not loaded yet: call (and await) init() from '${entry}' first`,
      );
  };

  const api = {};
  for (const [name, value] of Object.entries(glue)) {
    if (name === 'default' || name === 'initSync') continue;
    if (typeof value !== 'function') {
      api[name] = value;
      continue;
    }
    if (/^[A-Z]/.test(name) && value.prototype)
      api[name] = guardClass(name, value, check, {
        numeric: numericMethods[name] ?? {},
        text: textArguments[name] ?? {},
        prepare: prepare[name] ?? {},
        names: names[name] ?? {},
      });
    else if (name in numeric) {
      const bad = numeric[name];
      const fn = value;
      api[name] = (...args) => {
        if (!ready) return bad;
        try {
          return fn(...args.map(num));
        } catch {
          return bad;
        }
      };
    } else {
      const fn = value;
      api[name] = (...args) => {
        check();
        try {
          return fn(...args);
        } catch (e) {
          throw recode(e);
        }
      };
    }
    Object.defineProperty(api[name], 'name', { value: name });
  }

  // The .wasm of another entry point can link (its imports a subset of this glue's) and then
  // fail; the glue keeps that instance (it returns it when called with no module) and would
  // hand it to every later init, so those are refused instead of reporting success.
  let stuck = false;
  const failed = (what, e) => {
    let held = false;
    try {
      held = glue.initSync() !== undefined;
    } catch {}
    stuck ||= held;
    return loadFailed(what, e, file, entry, held || e instanceof WebAssembly.LinkError);
  };
  const checkStuck = () => {
    if (stuck)
      throw coded('not_initialized', `an earlier init loaded a .wasm that is not ${file}: load the page again`);
  };

  /** Instantiates the module from bytes or a compiled module, synchronously. */
  function initSync(input) {
    if (ready) return;
    checkStuck();
    try {
      glue.initSync({ module: input });
    } catch (e) {
      throw failed('instantiated', e);
    }
    ready = true;
  }

  /**
   * Loads the module once; later calls get the same promise, until a load fails (the next call
   * tries again). `input` is null only when no URL was given and the entry has no module URL to
   * find its `file` from (a bundle in a classic script or an IIFE).
   */
  function init(input) {
    loading ??= (async () => {
      if (ready) return;
      try {
        checkStuck();
        if (input == null) throw new Error(`no module URL to find ${file}: pass its URL`);
        await glue.default({ module_or_path: await input });
      } catch (e) {
        loading = null;
        throw isLongcallError(e) ? e : failed('loaded', e);
      }
      ready = true;
    })();
    return loading;
  }

  state = { api, init, initSync, isReady: () => ready };
  STATES.set(glue, state);
  return state;
}

const own = (o, key) => (Object.hasOwn(o, key) ? o[key] : undefined);

// `name` is the export's name: a bundler may rename the class itself (`CancelButton$1`).
function guardClass(name, Cls, check, { numeric: numericMethods, text: textArguments, prepare, names }) {
  const proto = Cls.prototype;
  const self = (obj, member) => {
    if (!(obj instanceof Cls))
      throw coded(
        'unbound',
        `${name}.${member} was called without its ${name} (write () => x.${member}(), or bind it)`,
      );
    if (!obj.__wbg_ptr) throw coded('freed', `this ${name} was freed; ${member} cannot be used any more`);
    return obj;
  };
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor' || key.startsWith('__')) continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === 'free') {
      const free = d.value;
      d.value = function () {
        // Unbound is refused as any method is; freed again is nothing.
        if (!(this instanceof Cls)) self(this, key);
        if (this.__wbg_ptr) free.call(this);
      };
    } else if (typeof d.value === 'function' && key in numericMethods) {
      const fn = d.value,
        bad = numericMethods[key],
        arity = fn.length,
        text = own(textArguments, key) ?? -1;
      // Up to four arguments passed one by one (no array made per call, these are hot).
      d.value = function (...args) {
        self(this, key);
        try {
          return args.length === arity && arity <= 4
            ? fn.call(
                this,
                arg(args[0], text === 0),
                arg(args[1], text === 1),
                arg(args[2], text === 2),
                arg(args[3], text === 3),
              )
            : fn.apply(
                this,
                args.map((v, i) => arg(v, i === text)),
              );
        } catch {
          return bad;
        }
      };
    } else if (typeof d.value === 'function') {
      const fn = d.value,
        prep = own(prepare, key);
      d.value = function (...args) {
        self(this, key);
        try {
          prep?.(args);
          return fn.apply(this, args);
        } catch (e) {
          throw recode(e);
        }
      };
    } else if (d.get) {
      const get = d.get,
        table = own(names, key);
      d.get = function () {
        self(this, key);
        try {
          // A name the module hands over as its code (255 for none: undefined).
          return table ? table[get.call(this)] : get.call(this);
        } catch (e) {
          throw recode(e);
        }
      };
    } else continue;
    Object.defineProperty(proto, key, d);
  }
  // `using` frees through the same guard (build.mjs takes the glue's own line out).
  if (Symbol.dispose) proto[Symbol.dispose] = proto.free;
  // Static methods (`restore`): a module that is not loaded yet, and coded errors.
  for (const key of Object.getOwnPropertyNames(Cls)) {
    const d = Object.getOwnPropertyDescriptor(Cls, key);
    if (typeof d.value !== 'function' || key.startsWith('__')) continue;
    const fn = d.value,
      prep = own(prepare, key);
    Object.defineProperty(Cls, key, {
      ...d,
      value: (...args) => {
        check();
        try {
          prep?.(args);
          return fn.apply(Cls, args);
        } catch (e) {
          throw recode(e);
        }
      },
    });
  }
  // JSON.stringify(instance) would show the glue's pointer; a class without toJSON shows {}.
  if (!('toJSON' in proto))
    Object.defineProperty(proto, 'toJSON', {
      value() {
        return {};
      },
      configurable: true,
      writable: true,
    });
  // The constructor: a function whose prototype is the class's, so `instanceof` and static
  // members stay those of the class (cheaper to call than a proxy's construct trap).
  function guarded(...args) {
    // `Tracker(...)` without `new` (a class cannot be called): a coded error that says so.
    if (!new.target) throw coded('unbound', `${name} was called without new (write new ${name}(...))`);
    check();
    try {
      own(prepare, 'new')?.(args);
      return Reflect.construct(Cls, args, new.target);
    } catch (e) {
      throw recode(e);
    }
  }
  guarded.prototype = proto;
  Object.setPrototypeOf(guarded, Cls);
  return guarded;
}
