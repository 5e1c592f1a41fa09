// The command line every mutant proxy module has (mutants/*.mjs), when run as a program:
//   node mutants/<proxy>.mjs --list
//   node mutants/<proxy>.mjs --mutant NAME [--port N] [--max-lifetime-ms MS]
// It prints `LISTENING <url>` (lib/fixture.mjs waits for it) and stops on SIGTERM, SIGINT or
// after its lifetime (default 120 s), so a forgotten proxy never outlives its leg for long.
import { pathToFileURL } from 'node:url';

/**
 * Runs the command line when `moduleUrl` (the proxy's `import.meta.url`) is the program node
 * was started with; does nothing when the module is imported.
 */
export async function runMutantCli(moduleUrl, mutants, startMutant) {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const argv = process.argv.slice(2);
  if (argv.includes('--list')) {
    for (const [n, m] of Object.entries(mutants)) process.stdout.write(`${n}\t${m.what}\t${m.rule}\n`);
    process.exit(0);
  }
  const arg = (k, d) => {
    const i = argv.indexOf(k);
    return i >= 0 ? argv[i + 1] : d;
  };
  const mut = await startMutant(arg('--mutant', 'none'), Number(arg('--port', 0)));
  process.stdout.write(`LISTENING ${mut.url}\n`);
  const stop = async () => {
    await mut.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  setTimeout(stop, Number(arg('--max-lifetime-ms', 120000))).unref();
}
