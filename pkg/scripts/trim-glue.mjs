// Takes out of the wasm-bindgen glue what no host of this package reaches, about 0.2 KB gzip of
// every entry point:
// * the branches for call shapes runtime.js never uses: the glue's `initSync(module)` and
//   `init(module_or_path)` also accept their argument bare, with a console warning that the
//   shape is deprecated; runtime.js always passes `{ module }` or `{ module_or_path }`;
// * the fallback for a `TextEncoder` without `encodeInto`, which every engine that runs these
//   modules (reference types, multi-value) has;
// * the wrong-MIME-type warning names the type that came, in fewer words;
// * each class's stand-in for a missing `FinalizationRegistry`, which every such engine has too;
// * and each class's `Symbol.dispose` line: runtime.js points `Symbol.dispose` of every class at
//   its guarded `free` itself.
//
// The glue is read as wasm-bindgen (pinned, see build.mjs) writes it; a glue without these
// branches fails the build instead of shipping unchanged unnoticed.
import { readFileSync, writeFileSync } from 'node:fs';

const BARE = (name, call) =>
  new RegExp(
    String.raw`if \(Object\.getPrototypeOf\(${name}\) === Object\.prototype\) \{\s*\(\{${name}\} = ${name}\)\s*\} else \{\s*console\.warn\('using deprecated parameters for ${call}; pass a single object instead'\)\s*\}`,
  );
const BRANCHES = [
  [BARE('module', '`initSync\\(\\)`'), '({module} = module)'],
  [BARE('module_or_path', 'the initialization function'), '({module_or_path} = module_or_path)'],
  [/if \(!\('encodeInto' in cachedTextEncoder\)\) \{[\s\S]*?\n\}\n/, ''],
  [
    /console\.warn\("`WebAssembly\.instantiateStreaming` failed because your server does not serve Wasm with `application\/wasm` MIME type\. Falling back to `WebAssembly\.instantiate` which is slower\. Original error:\\n", e\);/,
    // The type it got, not "slower": a wrong URL answering an HTML page lands here too, and the
    // error that follows says what to do about it.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: glue source text, its own template literal
    "console.warn(`longcall: .wasm served as ${module.headers.get('Content-Type')}, not application/wasm; compiling its bytes`);",
  ],
];

/** Rewrites `gluePath` in place; returns how many pieces it changed. */
export function trimGlue(gluePath) {
  let js = readFileSync(gluePath, 'utf8');
  for (const [branch, kept] of BRANCHES) {
    if (!branch.test(js)) throw new Error(`trim-glue: ${gluePath}: no ${branch.source.slice(0, 60)}...`);
    js = js.replace(branch, kept);
  }
  // One per class (a module without classes has none).
  const classes = /^export class \w+ \{$/gm;
  const dispose = /^if \(Symbol\.dispose\) (\w+)\.prototype\[Symbol\.dispose\] = \1\.prototype\.free;\n/gm;
  const found = js.match(dispose)?.length ?? 0;
  const declared = [...js.matchAll(classes)].length;
  if (found !== declared)
    throw new Error(`trim-glue: ${gluePath}: ${found} Symbol.dispose lines for ${declared} classes`);
  js = js.replace(dispose, '');
  const standIn =
    /\(typeof FinalizationRegistry === 'undefined'\)\n\s*\? \{ register: \(\) => \{\}, unregister: \(\) => \{\} \}\n\s*: /g;
  const standIns = js.match(standIn)?.length ?? 0;
  if (standIns !== declared)
    throw new Error(`trim-glue: ${gluePath}: ${standIns} FinalizationRegistry stand-ins for ${declared} classes`);
  js = js.replace(standIn, '');
  writeFileSync(gluePath, js);
  return BRANCHES.length + found + standIns;
}
