// Type-checks a consumer of `longcall/jobs` (compiled by test/types.test.mjs through tsconfig.json).
import { JobHost, JobHostError, type Job, type JobStore } from 'longcall/jobs';
import type { ButtonState } from 'longcall';

const store: JobStore = new Map<string, string>();

export async function example(baseUrl: string): Promise<string> {
  const host = new JobHost({ baseUrl, headers: { authorization: 'Bearer k' }, store, dialect: 'open_api' });
  const states: ButtonState[] = [];
  const job: Job = await host.submit(
    'intent-1',
    { model: 'demo-image', kind: 'image', arguments: { prompt: 'a harbour' } },
    { onButton: (state) => states.push(state) },
  );
  const created = await job.created;
  const end = await job.settled;
  if (end.type === 'stopped') return end.reason;
  if (created) {
    const wave = host.wait([created], { waitFor: 'all' });
    const { settled } = await wave.done;
    return `${end.outcome} ${settled.size}`;
  }
  // @ts-expect-error a kind the core does not know
  await host.submit('intent-2', { model: 'demo-image', kind: 'audio' });
  return end.status ?? 'none';
}

// A JobHostError's code is a literal union: a switch over it is checked.
export function why(e: unknown): string {
  if (!(e instanceof JobHostError)) return 'other';
  if (e.code === 'closed' || e.code === 'cancel_refused') return e.code;
  // @ts-expect-error: not a code a JobHostError can have
  if (e.code === 'cancel-refused') return 'never';
  return e.message;
}

// Arguments typed by an interface fit (an interface has no index signature).
interface RenderArgs {
  prompt: string;
  seed?: number;
}
export async function withInterface(host: JobHost, args: RenderArgs) {
  return host.submit('intent-i', { model: 'demo-image', kind: 'image', arguments: args });
}
