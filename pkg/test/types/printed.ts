// Types as an editor prints them (test/types.test.mjs compiles this with declarations): JSON the
// caller owns keeps its type through the camelCase mapping.
import type { TrackerOutput } from 'longcall';

export function resultOf(o: Extract<TrackerOutput, { type: 'settled' }>) {
  return o.result;
}

export function requestOf(o: Extract<TrackerOutput, { type: 'ask_user' }>) {
  return o.request;
}
