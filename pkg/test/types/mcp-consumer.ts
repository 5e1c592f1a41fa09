// Type-checks a consumer of `longcall/mcp` (compiled by test/types.test.mjs through tsconfig.json).
import type { SdkClientLike } from 'longcall/mcp';
import {
  callTool,
  httpSender,
  resume,
  sdk2Sender,
  sdkSender,
  watchTask,
  McpCallError,
  type CallHandle,
  type CallOutcome,
  type InputAnswer,
  type McpOutcome,
  type Sender,
} from 'longcall/mcp';
import type { TaskStatus } from 'longcall';
import { readAnswer, readResult, buildRequest, type ReadAnswer, type BuiltRequest } from 'longcall';
import type { CallToolResult, GetTaskResult } from '@modelcontextprotocol/sdk/types.js';

/** Results as the SDK's `client.callTool` and `client.request` return them (index signatures of `unknown`). */
declare const sdkCall: CallToolResult;
declare const sdkTask: GetTaskResult;
export const fromSdk: ReadAnswer[] = [
  readResult('task-2025', 'call', sdkCall),
  readResult('task-2025', 'get', sdkTask),
];

/** What SDK code has in hand: arguments as the SDK types them, an answer as an interface. */
interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}
export async function fromSdkTypes(sender: Sender, llmArgs: Record<string, unknown>, answer: ElicitAnswer) {
  return callTool(sender, { name: 'render', arguments: llmArgs, onInput: async () => answer });
}

export async function example(url: string): Promise<string> {
  const sender: Sender = httpSender({ url, timeoutMs: 10_000 });
  const ac = new AbortController();
  const h: CallHandle = await callTool(sender, {
    name: 'slow_compute',
    arguments: { seconds: 3 },
    signal: ac.signal,
    onInput: async (_key, _request) => ({ action: 'accept', content: { confirm: true } }),
    onButton: (state) => {
      const s: 'available' | string = state;
      void s;
    },
    onViolation: (v) => {
      void v.detail;
    },
  });
  const saved: string = h.snapshot();
  const again: CallHandle = resume(saved, sender);
  const lost: CallHandle = watchTask(sender, 'id');
  void again;
  void lost;
  try {
    await h.cancel();
  } catch (e) {
    if (e instanceof McpCallError) return e.code;
  }
  const out: CallOutcome = await h.outcome;
  // The result's members a host reads are typed: no cast to reach the text.
  const text: string | undefined = out.result?.content?.[0]?.text;
  const isError: boolean | undefined = out.result?.isError;
  void text;
  void isError;
  const r: ReadAnswer = readAnswer('task-2026', 'get', '{}');
  const b: BuiltRequest = buildRequest('task-2025', { kind: 'fetch_result', handle: 't' }, 1);
  void r;
  void b;
  return out.outcome;
}

// The SDK senders: 1.x needs the SDK's types module, 2.x only the Client; a fake clock drives a watch.
export function senders(client1: SdkClientLike, types: object, client2: SdkClientLike): Sender[] {
  const one: Sender = sdkSender(client1, { types, requestTimeoutMs: 5_000 });
  const two: Sender = sdk2Sender(client2, { resultTimeoutMs: 60_000 });
  let t = 0;
  watchTask(two, 'id', {
    now: () => t,
    timers: {
      setTimeout: (fn, ms) => {
        t += ms;
        fn();
        return 0;
      },
      clearTimeout: () => {},
    },
  });
  return [one, two, ...(one.routeInput ? [] : [two])];
}

// onInput answers an object: a promise of a string or a number does not type-check.
export async function badAnswers(sender: Sender) {
  // @ts-expect-error: an answer is an object, not a string
  await callTool(sender, { name: 'render', onInput: async () => 'yes' });
  // @ts-expect-error: nor a number
  await callTool(sender, { name: 'render', onInput: () => 42 });
  await callTool(sender, { name: 'render', onInput: async () => ({ action: 'accept', content: { ok: true } }) });
}

interface GreetArgs {
  name: string;
}
export async function interfaceArgs(sender: Sender, args: GreetArgs) {
  return callTool(sender, { name: 'greet', arguments: args });
}

// An MCP host's switch over the outcomes is exhaustive without the jobs' own `failed` and `expired`.
export function label(outcome: McpOutcome): string {
  switch (outcome) {
    case 'succeeded':
      return 'Done';
    case 'tool_error':
      return 'The tool reported an error';
    case 'protocol_failure':
      return 'The server failed the call';
    case 'cancelled':
      return 'Cancelled';
    case 'lost':
      return 'Lost: whether it ran is unknown';
    default: {
      const none: never = outcome;
      return none;
    }
  }
}

// An answer written out as a function's return type, and a label per task status (never a
// job's own `queued` or `canceled`).
export const decline = (): InputAnswer => ({ action: 'decline' });
const STATUS_LABEL: Record<TaskStatus, string> = {
  working: 'Working',
  input_required: 'Needs you',
  completed: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
export async function labelled(sender: Sender) {
  const h = await callTool(sender, {
    name: 'render',
    onStatus: (status) => console.log(STATUS_LABEL[status]),
    onSnapshot: (text: string) => localStorage.setItem('call', text),
  });
  return h.status === null ? 'none' : STATUS_LABEL[h.status];
}
