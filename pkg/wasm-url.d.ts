/**
 * A browser entry's .wasm, imported so that the bundler copies it and hands over its URL, to
 * pass to that entry's `init()`:
 *
 * ```ts
 * import { init } from 'longcall/lite';
 * import wasmUrl from 'longcall/lite/wasm'; // esbuild: --loader:.wasm=file; Vite: 'longcall/lite/wasm?url'
 * await init(new URL(wasmUrl, import.meta.url));
 * ```
 */
declare const url: string;
export default url;
