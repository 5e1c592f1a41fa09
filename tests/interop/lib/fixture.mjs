// Spawn a fixture server, wait for its `LISTENING <url>` line, kill it by PID.
//
//   import { startFixture, sdk2025Http, fastmcpHttp } from './lib/fixture.mjs';
//   const f = await startFixture(sdk2025Http());      // { url, pid, child, stderr(), stop() }
//   ... f.url ...
//   await f.stop();                                   // SIGTERM to f.pid, SIGKILL after a grace period
//
// Stdio fixtures print LISTENING on stderr (stdout is the JSON-RPC channel): use { stream: 'stderr' }.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INTEROP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const VENV_PYTHON = path.join(INTEROP_DIR, '.venv', 'bin', 'python');

/** Command spec for the SDK 1.32.2 (2025-11-25) fixture over Streamable HTTP. */
export const sdk2025Http = (extra = []) => ({
  cmd: process.execPath,
  args: [path.join(INTEROP_DIR, 'fixtures', 'sdk2025-server.mjs'), '--http', ...extra],
  stream: 'stdout',
  name: 'sdk2025-http',
});
/** Command spec for the SDK 1.32.2 fixture over stdio (LISTENING goes to stderr, url is "stdio"). */
export const sdk2025Stdio = (extra = []) => ({
  cmd: process.execPath,
  args: [path.join(INTEROP_DIR, 'fixtures', 'sdk2025-server.mjs'), '--stdio', ...extra],
  stream: 'stderr',
  name: 'sdk2025-stdio',
});
/** Command spec for the fastmcp-tasks 4.1.4 (2026-07-28 extension) fixture. */
export const fastmcpHttp = (extra = []) => ({
  cmd: VENV_PYTHON,
  args: [path.join(INTEROP_DIR, 'fixtures', 'fastmcp_tasks_server.py'), ...extra],
  stream: 'stdout',
  name: 'fastmcp-tasks',
});

/**
 * Start a fixture and resolve once it printed `LISTENING <url>`.
 * @param {{cmd:string,args:string[],stream?:'stdout'|'stderr',name?:string,env?:object,cwd?:string}} spec
 * @param {{timeoutMs?:number}} [opts]  default 20000
 */
export function startFixture(spec, { timeoutMs = 20000 } = {}) {
  const stream = spec.stream ?? 'stdout';
  const child = spawn(spec.cmd, spec.args, {
    cwd: spec.cwd ?? INTEROP_DIR,
    env: { ...process.env, ...(spec.env ?? {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const logs = { stdout: '', stderr: '' };
  const MAX_LOG = 1 << 20;
  let resolveListening, rejectListening;
  const listening = new Promise((res, rej) => {
    resolveListening = res;
    rejectListening = rej;
  });
  let lineBuf = '';
  let seen = false;
  const onData = (which) => (chunk) => {
    const s = chunk.toString('utf8');
    if (logs[which].length < MAX_LOG) logs[which] += s;
    if (which !== stream || seen) return;
    lineBuf += s;
    let i;
    while ((i = lineBuf.indexOf('\n')) >= 0) {
      const line = lineBuf.slice(0, i).trim();
      lineBuf = lineBuf.slice(i + 1);
      const m = /^LISTENING (\S+)$/.exec(line);
      if (m) {
        seen = true;
        resolveListening(m[1]);
        return;
      }
    }
  };
  // For stdio fixtures stdout carries JSON-RPC: the caller reads child.stdout itself; we do not consume it.
  if (stream === 'stdout') child.stdout.on('data', onData('stdout'));
  child.stderr.on('data', onData('stderr'));
  const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
  child.on('error', (e) => rejectListening(e));
  exited.then(({ code, signal }) => {
    if (!seen)
      rejectListening(
        new Error(`${spec.name ?? spec.cmd} exited (code ${code}, signal ${signal}) before LISTENING\n${logs.stderr}`),
      );
  });
  const timer = setTimeout(
    () => rejectListening(new Error(`${spec.name ?? spec.cmd}: no LISTENING within ${timeoutMs} ms\n${logs.stderr}`)),
    timeoutMs,
  );

  const handle = {
    child,
    pid: child.pid,
    url: undefined,
    exited,
    stdout: () => logs.stdout,
    stderr: () => logs.stderr,
    /** SIGTERM this PID; SIGKILL after graceMs. Resolves {code, signal, ms}. */
    async stop(graceMs = 5000) {
      const t0 = Date.now();
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(child.pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
        const killer = setTimeout(() => {
          try {
            process.kill(child.pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }, graceMs);
        const r = await exited;
        clearTimeout(killer);
        return { ...r, ms: Date.now() - t0 };
      }
      return { ...(await exited), ms: 0 };
    },
  };
  return listening
    .then((url) => {
      clearTimeout(timer);
      handle.url = url;
      return handle;
    })
    .catch(async (e) => {
      clearTimeout(timer);
      await handle.stop(1000);
      throw e;
    });
}
