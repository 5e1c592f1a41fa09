// The MCP side of the store tests' host processes (store-host.mjs, fleet-host.mjs): a watched
// call's creating `tools/call` and its tracker's requests, built and read by the core
// (`buildCall`, `buildRequest`, `readAnswer`) and sent on Streamable HTTP. Each resolves to the
// input to feed the watch list, and never rejects: a request without a usable answer is the
// input that says so.
import { buildCall, buildRequest, readAnswer } from 'longcall';

let rpcId = 0;

/** One request (`{message, headers}` from the core) on Streamable HTTP; the answer's text. */
async function post(url, built, headers) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
      ...built.headers,
    },
    body: JSON.stringify(built.message),
  });
  return res.text();
}

/** The `tools/call` of a `create` output's intent (`{model, request: {name, arguments}}`). */
export async function mcpCreate(url, intent, headers = {}) {
  const { model, request } = intent;
  try {
    return readAnswer(
      model,
      'call',
      await post(url, buildCall(model, ++rpcId, request.name, request.arguments, null), headers),
    ).input;
  } catch {
    return { type: 'create_unanswered' };
  }
}

/** A tracker's `send` request (`get`, `cancel`, `update`, `fetch_result`) on `model`'s revision. */
export async function mcpSend(url, model, request, headers = {}) {
  try {
    return readAnswer(model, request.kind, await post(url, buildRequest(model, request, ++rpcId), headers)).input;
  } catch {
    return { type: 'request_failed', request: request.kind, failure: { kind: 'transport' } };
  }
}
