// Gives `<f64 as core::fmt::Display>::fmt` a body that writes nothing, so wasm-opt drops core's
// float formatter behind it (Grisu, Dragon and their tables: about 7 KB gzip of `longcall`).
//
// Nothing in these modules prints a float that way, but it stays linked: serde's `Display` of
// `Unexpected` has an arm for `Unexpected::Float` that formats the number with it, and
// serde_json's error messages reach that `Display`. serde_json spells a float in its messages
// itself (`invalid type: floating point `1.5``, with its own formatter) and hands serde the
// other kinds only; no other `serde::de::Error` is in these modules (`longcall::tagged` reads
// through serde_json's), and longcall's own messages spell numbers from JavaScript
// (`String(n)`) or as integers. Writing nothing and answering `Ok` keeps even a path this
// reasoning missed from trapping: it would print a message without its number.
// (pkg/test/node.test.mjs checks that a refused float is still quoted in full.)
//
// Needs the module's name section, so it runs between wasm-bindgen (names kept) and wasm-opt
// (which drops them).
import binaryen from 'binaryen';
import { readFileSync, writeFileSync } from 'node:fs';

const FLOAT_DISPLAY = /^<f64 as core\[[0-9a-f]+\]::fmt::Display>::fmt$/;

/** Rewrites `wasmPath` in place; returns how many functions it emptied (0 or 1). */
export function emptyFloatDisplay(wasmPath) {
  const module = binaryen.readBinary(readFileSync(wasmPath));
  try {
    let emptied = 0;
    for (let i = 0; i < module.getNumFunctions(); i++) {
      const fn = module.getFunctionByIndex(i);
      const info = binaryen.getFunctionInfo(fn);
      if (!FLOAT_DISPLAY.test(info.name)) continue;
      // fn(&f64, &mut Formatter) -> fmt::Result: two pointers in, 0 for `Ok(())` out.
      const params = binaryen.expandType(info.params);
      if (params.length !== 2 || params.some((t) => t !== binaryen.i32) || info.results !== binaryen.i32)
        throw new Error(`float-display: ${info.name} has an unexpected signature`);
      binaryen.Function.setBody(fn, module.i32.const(0));
      emptied++;
    }
    if (emptied) {
      // The names stay for now: wasm-opt, which runs next, is what drops them.
      binaryen.setDebugInfo(true);
      writeFileSync(wasmPath, module.emitBinary());
      binaryen.setDebugInfo(false);
    }
    return emptied;
  } finally {
    module.dispose();
  }
}
