// Starts the reference job server (`longcall serve-jobs`, the release CLI) on loopback for a
// test: `serveJobs(args)` spawns it with `--port 0` and the given flags; `url` resolves to its
// base URL once it prints it. Needs `cargo build -p longcall-cli --release` (or LONGCALL_CLI).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.mjs';

export const CLI = process.env.LONGCALL_CLI ?? join(ROOT, 'target/release/longcall');

/**
 * @param {string[]} args flags after `serve-jobs --port 0`
 * @returns {{child: import('node:child_process').ChildProcess, url: Promise<string>}}
 */
export function serveJobs(args) {
  const child = spawn(CLI, ['serve-jobs', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve-jobs exited ${code}`)));
  });
  return { child, url };
}
