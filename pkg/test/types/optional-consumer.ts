// Compiled with exactOptionalPropertyTypes (tsconfig.strictest.json): options built from values
// that may be undefined (a flag not given, an environment variable not set) pass as they are,
// since every option reader treats an undefined member as one left out.
import { Endpoint, Tracker, Wave, type TrackerConfig } from 'longcall';
import { JobHost } from 'longcall/jobs';
import { callTool, httpSender } from 'longcall/mcp';

declare const maybeMs: number | undefined;
declare const maybeKey: string | undefined;
declare const maybeSignal: AbortSignal | undefined;
declare const maybeFetch: typeof fetch | undefined;

const config: TrackerConfig = { poll: { initialMs: maybeMs, capMs: maybeMs }, seed: maybeMs, deadlineMs: maybeMs };
new Tracker('job', config).free();
Endpoint.watch('task-2026', 't1', { poll: undefined }, { maxBytes: maybeMs, jobRoutes: undefined }).free();
Endpoint.callTool('task-2026', 'render', {}, { ttlMs: maybeMs, config: undefined, wire: undefined }).free();
new Wave({ timeoutSeconds: maybeMs, backoff: undefined }).free();
new JobHost({
  baseUrl: 'http://127.0.0.1:1',
  headers: maybeKey ? { authorization: maybeKey } : undefined,
  fetch: maybeFetch,
});

export async function call(url: string) {
  const sender = httpSender({ url, timeoutMs: maybeMs, fetch: maybeFetch });
  return callTool(sender, { name: 'render', ttlMs: maybeMs, signal: maybeSignal, onProgress: undefined });
}
