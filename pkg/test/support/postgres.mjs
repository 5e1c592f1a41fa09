// A real PostgreSQL server for the store tests: Debian's binaries (scripts/install-tools.sh
// installs them), a fresh cluster in a temporary directory, listening on 127.0.0.1 only, on a
// free port. Never a mock. As root, the cluster runs as the `postgres` user (the server refuses
// to run as root).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The directory of Debian's server binaries (`initdb`, `postgres`), or null. */
export function postgresBin() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], 'bin') : null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a throwaway cluster. Resolves to `{ url, stop }`; `stop()` shuts it down and removes
 * the directory.
 */
export async function startPostgres() {
  const bin = postgresBin();
  if (!bin)
    throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (run scripts/install-tools.sh)');
  const dir = mkdtempSync(join(tmpdir(), 'longcall-pg-'));
  chmodSync(dir, 0o777);
  // The server refuses to run as root: as root, run it as the `postgres` user Debian creates.
  const user =
    process.getuid?.() === 0
      ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) }
      : {};
  const data = join(dir, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'longcall', '--no-sync', '-E', 'UTF8'], {
    stdio: 'pipe',
    cwd: dir,
    ...user,
  });
  const port = await freePort();
  const server = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=100',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir, ...user },
  );
  let log = '';
  server.stderr.on('data', (d) => {
    log += d;
  });
  const url = `postgres://longcall@127.0.0.1:${port}/postgres`;
  const pg = (await import('pg')).default;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.end();
      break;
    } catch (e) {
      await c.end().catch(() => {});
      if (server.exitCode !== null || Date.now() > deadline) {
        server.kill('SIGKILL');
        throw new Error(`postgres did not start: ${e.message}\n${log.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async stop() {
      // SIGINT is PostgreSQL's fast shutdown: it ends every session and exits.
      const exited = new Promise((r) => (server.exitCode !== null ? r() : server.once('exit', r)));
      server.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
