// Registers the glue's objects for garbage collection lazily. wasm-bindgen's glue registers
// every instance with a `FinalizationRegistry` when it is made and unregisters it in `free()`:
// about half a microsecond of a tracker that lives for one lifecycle and is freed explicitly.
// Here an instance is registered once the code that made it has run to its end (a microtask),
// and only if it has not been freed by then; `free()` unregisters only what was registered. An
// instance that is never freed is still reclaimed: it is registered at the end of the task that
// made it, before any collection could have run its finalizer anyway.
//
// The glue is read as wasm-bindgen (pinned, see build.mjs) writes it: each class's registry is
// `new FinalizationRegistry(ptr => wasm.<free>(ptr, 1))`. A glue with no such registry fails
// the build instead of shipping one whose instances leak or are registered eagerly unnoticed.
import { readFileSync, writeFileSync } from 'node:fs';

const REGISTRY = /new FinalizationRegistry\((ptr => wasm\.\w+\(ptr, 1\))\)/g;

// Appended to the glue (plain JavaScript, no imports). A long synchronous loop does not hold
// every instance it made until its end: every 256 made, those still alive are registered. The flag on a registered instance tells
// `unregister` whether there is anything to undo (unregistering costs as much as registering).
const LAZY = `
function lazyFinalization(registry) {
    let pending = [];
    const flush = () => {
        const made = pending;
        pending = [];
        for (const obj of made) {
            if (obj.__wbg_ptr) {
                obj.__wbg_registered = true;
                registry.register(obj, obj.__wbg_ptr, obj);
            }
        }
    };
    return {
        register(obj) {
            const n = pending.push(obj);
            if (n === 1) queueMicrotask(flush);
            else if (n === 256) flush();
        },
        unregister(obj) {
            if (obj.__wbg_registered) registry.unregister(obj);
        },
    };
}
`;

/** Rewrites the glue at `gluePath` in place; returns how many registries it made lazy. */
export function lazyFinalization(gluePath) {
  let glue = readFileSync(gluePath, 'utf8');
  let n = 0;
  glue = glue.replace(REGISTRY, (_, finalize) => {
    n++;
    return `lazyFinalization(new FinalizationRegistry(${finalize}))`;
  });
  if (n === 0) throw new Error(`lazy-finalization: no FinalizationRegistry in ${gluePath}`);
  writeFileSync(gluePath, glue + LAZY);
  return n;
}
