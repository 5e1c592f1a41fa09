// Audits a recorded transcript for `notifications/cancelled` sent by the client for a request the
// server had already answered. MCP: cancellation names only requests still in progress.
import { readTranscript } from './transcript.mjs';

/** Returns `[{requestId, seq}]`: each client cancel naming a request whose answer came before it. */
export function lateCancels(file) {
  const answered = new Set();
  const late = [];
  for (const line of readTranscript(file)) {
    const m = line.msg;
    if (!m) continue;
    if (line.dir === 's2c' && m.id !== undefined && !m.method && ('result' in m || 'error' in m)) answered.add(m.id);
    if (line.dir === 'c2s' && m.method === 'notifications/cancelled' && answered.has(m.params?.requestId)) {
      late.push({ requestId: m.params.requestId, seq: line.seq });
    }
  }
  return late;
}
