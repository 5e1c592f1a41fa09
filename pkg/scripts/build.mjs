// Builds pkg/dist/ from the Rust sources, five times (bindings/wasm/Cargo.toml's features): the
// structured client module (`longcall`), the small one behind `longcall/lite` (rules, the cancel
// button and the numbers-only tracker, no JSON reading), the reference servers behind
// `longcall/server`, the watch list behind `longcall/store` and the scenario-vector runner behind
// `longcall/vectors`; then `longcall` once more,
// compiled for speed, for its Node entry (`longcall_node`, below). For each:
//   cargo build -p longcall-wasm --target wasm32-unknown-unknown --profile wasm --no-default-features [--features ...]
//   wasm-bindgen --target web --out-name longcall|longcall_lite|longcall_server|longcall_watch|longcall_vectors (producers section removed; names kept for float-display.mjs)
//   the float formatter's entry emptied (float-display.mjs)
//   wasm-opt -Os [more passes for the small module] (npm binaryen 132; NOT Debian's binaryen 108,
//   whose output crashes at load); then short import and export names (minify-names.mjs)
// Usage: npm --prefix pkg run build   (LONGCALL_BUILDS=longcall_lite,... builds only those, keeping
// the others in dist/: for quick iterations on one module)
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emptyFloatDisplay } from './float-display.mjs';
import { lazyFinalization } from './lazy-finalization.mjs';
import { minifyNames } from './minify-names.mjs';
import { trimGlue } from './trim-glue.mjs';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(PKG, '..');
const DIST = join(PKG, 'dist');
const CRATE = 'longcall-wasm';
const TARGET = 'wasm32-unknown-unknown';
const PROFILE = 'wasm';
// rustc's default wasm32 features (Rust >= 1.87): binaryen must be told, or it rejects the module.
const FEATURES = [
  '--enable-bulk-memory',
  '--enable-nontrapping-float-to-int',
  '--enable-sign-ext',
  '--enable-mutable-globals',
  '--enable-reference-types',
  '--enable-multivalue',
];

function run(cmd, args, opts = {}) {
  const t0 = performance.now();
  console.error(`$ ${cmd} ${args.join(' ')}`);
  const out = execFileSync(cmd, args, {
    cwd: ROOT,
    stdio: opts.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  console.error(`[time] ${((performance.now() - t0) / 1000).toFixed(1)}s  ${cmd} ${args[0] ?? ''}`);
  return out;
}

function fail(msg) {
  console.error(`build: ${msg}`);
  process.exit(1);
}

// 1. The wasm-bindgen CLI must be exactly the crate version in Cargo.lock (schema must match).
const locked = run('cargo', ['pkgid', '-p', 'wasm-bindgen'], { capture: true })
  .trim()
  .replace(/.*[@#]/, '');
let cli = '';
try {
  cli = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' }).trim();
} catch {
  /* missing */
}
if (cli !== `wasm-bindgen ${locked}`) {
  fail(`need wasm-bindgen-cli ${locked} (Cargo.lock), found "${cli || 'none'}"; run scripts/install-tools.sh`);
}
const wasmOpt = join(PKG, 'node_modules', '.bin', 'wasm-opt');
if (!existsSync(wasmOpt))
  fail('pkg/node_modules/.bin/wasm-opt missing; run `npm ci` in pkg/ (or scripts/install-tools.sh)');

// 2. Rust -> wasm, 3. JS glue (ES module, `init`/`initSync`) + wasm, 4. size optimisation.
const locked_ = process.env.CI ? ['--locked'] : [];
const meta = JSON.parse(run('cargo', ['metadata', '--format-version', '1', '--no-deps'], { capture: true }));
const cargoOut = (profile) => join(meta.target_directory, TARGET, profile, `${CRATE.replaceAll('-', '_')}.wasm`);
const raw = cargoOut(PROFILE);
// The ES module glue (`init`/`initSync`) and the module it drives, names and producers removed.
const bindgen = (input, outDir, outName) =>
  run('wasm-bindgen', [
    input,
    '--target',
    'web',
    '--out-dir',
    outDir,
    '--out-name',
    outName,
    // The name section stays for float-display.mjs; wasm-opt drops it.
    '--remove-producers-section',
  ]);
// Panic locations name their source files, and a dependency's file is named by its path on the
// building machine (Cargo's home, then `registry/src/index.crates.io-<hash>/serde_json-1.0.154/...`):
// remapped to `crates/...`, the module carries no machine's paths and is the same wherever it is
// built. The standard library's paths are remapped by its own
// build already (`/rustc/<commit>/...`). Given as Cargo configuration for the wasm target only,
// so the host's builds and their cache are untouched.
const cargoHome = process.env.CARGO_HOME ?? join(homedir(), '.cargo');
const registries = join(cargoHome, 'registry', 'src');
const remaps = existsSync(registries)
  ? readdirSync(registries).map((dir) => JSON.stringify(`--remap-path-prefix=${join(registries, dir)}=crates`))
  : [];
const remapConfig = ['--config', `target.${TARGET}.rustflags=[${remaps.join(',')}]`];
/** The wasm crate built with `profile` and `features`, where `cargoOut(profile)` says. */
const cargoBuild = (profile, features) =>
  run('cargo', [
    'build',
    ...locked_,
    ...remapConfig,
    '-p',
    CRATE,
    '--target',
    TARGET,
    '--profile',
    profile,
    ...features,
  ]);
/** Empties the float formatter's entry (float-display.mjs) in every module that reads JSON. */
const floatDisplay = (name, wasm) => {
  const emptied = emptyFloatDisplay(wasm);
  // The small module reads no JSON and links no float formatter; every other one must have it,
  // or the pattern no longer matches what rustc names it and the formatter is back.
  if (name !== 'longcall_lite' && emptied !== 1) fail(`${name}: no \`<f64 as Display>::fmt\` to empty`);
  console.error(`float-display: ${name}: ${emptied} emptied`);
};
const only = process.env.LONGCALL_BUILDS?.split(',').filter(Boolean);
if (!only) rmSync(DIST, { recursive: true, force: true });
mkdirSync(DIST, { recursive: true });

// wasm-opt -Os for every build: these modules compress better after it than after -Oz, whose
// smaller raw output gzips worse (measured when it was switched: 48 B gzip off `longcall/lite`,
// 0.6 KB off `longcall`, 0.2 KB off `longcall/server`). The small module, whose size is its
// point, also gets flattening and re-relooping before two more rounds run until nothing changes,
// and loses the target-features section (only tools read it, and wasm-bindgen has run): about
// 450 B gzip less than one round alone, for ten seconds more. On the large modules those rounds
// take minutes.
// wasm-opt inlines every function that has one caller, however large, and in these modules
// that makes them less compressible: each export's shim swallows the core handler behind it. A
// limit of 20 instructions takes 0.5 KB gzip off `longcall/lite`, 22 KB off `longcall` and 21
// KB off `longcall/server` (limits from 10 to 40 measure within 0.1 KB of each other; 0,
// inlining none, is 0.2 to 0.5 KB worse). The page module's speed does not change (bench).
const ONE_CALLER_INLINING = ['--one-caller-inline-max-function-size=20'];
const LITE_OPT = ['--flatten', '--rereloop', '-Os', '-Os', '--converge', '--strip-target-features'];
const BUILDS = [
  ['longcall', ['--no-default-features', '--features', 'full'], []],
  ['longcall_lite', ['--no-default-features', '--features', 'client'], LITE_OPT],
  ['longcall_server', ['--no-default-features', '--features', 'server'], []],
  ['longcall_watch', ['--no-default-features', '--features', 'watch'], []],
  ['longcall_vectors', ['--no-default-features', '--features', 'vectors'], []],
];
for (const [name, features, opt] of BUILDS) {
  if (only && !only.includes(name)) continue;
  cargoBuild(PROFILE, features);
  if (!existsSync(raw)) fail(`cargo did not produce ${raw}`);
  const cargoSize = statSync(raw).size;
  bindgen(raw, DIST, name);
  const wasm = join(DIST, `${name}_bg.wasm`);
  const afterBindgen = statSync(wasm).size;
  floatDisplay(name, wasm);
  run(wasmOpt, ['-Os', ...ONE_CALLER_INLINING, ...opt, ...FEATURES, wasm, '-o', wasm]);
  // Short import and export names in the module and its glue (minify-names.mjs): 1.6 KB gzip
  // off `longcall/lite`, 2.2 KB off `longcall`, 1.6 KB off `longcall/server`.
  const names = minifyNames(wasm, join(DIST, `${name}.js`), `./${name}_bg.js`);
  console.error(`minify-names: ${name}: ${names} import and export names shortened`);
  console.error(`trim-glue: ${name}: ${trimGlue(join(DIST, `${name}.js`))} pieces trimmed`);
  // Instances freed by the code that made them are never registered for collection
  // (lazy-finalization.mjs): about 0.5 us off a tracker's lifecycle. Not in the small module,
  // whose size gate the 0.1 KB gzip of it would cross, nor in the vector runner, which has no
  // classes.
  if (name !== 'longcall_lite' && name !== 'longcall_vectors') {
    const lazy = lazyFinalization(join(DIST, `${name}.js`));
    console.error(`lazy-finalization: ${name}: ${lazy} registries`);
  }
  console.log(
    `build: ${name}: cargo ${cargoSize} B -> wasm-bindgen ${afterBindgen} B -> wasm-opt, short names ${statSync(wasm).size} B (${wasm})`,
  );
}

// `longcall` for Node (pkg/node.js loads it): the same crate and features as `longcall`, compiled
// for speed (Cargo profile `wasm-speed`, opt-level 3, and wasm-opt -O3), since Node reads the
// module from disk and pages never download it. It shares the glue of `longcall`: the build
// fails unless the glue wasm-bindgen writes for it, its names shortened, is that glue byte for
// byte, so one glue drives both and the tests in Node and in Chromium run the same source.
const NODE = 'longcall_node';
if (!only || only.includes(NODE)) {
  const features = BUILDS[0][1];
  cargoBuild('wasm-speed', features);
  const tmp = mkdtempSync(join(tmpdir(), 'longcall-node-'));
  try {
    bindgen(cargoOut('wasm-speed'), tmp, 'longcall');
    const wasm = join(tmp, 'longcall_bg.wasm');
    const glue = join(tmp, 'longcall.js');
    floatDisplay(NODE, wasm);
    run(wasmOpt, ['-O3', ...FEATURES, wasm, '-o', wasm]);
    minifyNames(wasm, glue, './longcall_bg.js');
    trimGlue(glue);
    lazyFinalization(glue);
    if (readFileSync(glue, 'utf8') !== readFileSync(join(DIST, 'longcall.js'), 'utf8'))
      fail(`${NODE}: its glue differs from dist/longcall.js; both modules must be built from the same sources`);
    copyFileSync(wasm, join(DIST, `${NODE}_bg.wasm`));
    console.log(
      `build: ${NODE}: ${statSync(join(DIST, `${NODE}_bg.wasm`)).size} B (dist/${NODE}_bg.wasm, glue dist/longcall.js)`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
