import { buildSync } from 'esbuild';
import { gzipSync } from 'node:zlib';
const out = buildSync({ entryPoints: ['/work/main/pkg/lite-web.js'], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
const t = out.outputFiles[0].contents;
console.log(t.length, gzipSync(t, { level: 9 }).length);
