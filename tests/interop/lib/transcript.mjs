// JSON Lines transcript writer, format of tests/traces/README.md:
//   {"seq":N,"t_ms":MS,"dir":"c2s"|"s2c","http":{...}?,"msg":{...one JSON-RPC message...}}
// seq starts at 1; t_ms is ms since the transcript was opened.
// Extension used by the HTTP recorder: lines with "msg":null are HTTP-only events (e.g. a 202 with an
// empty body, the standalone GET SSE stream opening, DELETE). Filter them out for JSON-RPC replay.
import fs from 'node:fs';
import path from 'node:path';

export class Transcript {
  constructor(file) {
    this.file = file;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, 'w');
    this.t0 = Date.now();
    this.seq = 0;
    this.lines = []; // in-memory copy for assertions
  }
  write(dir, msg, http) {
    if (this.fd === null) return;
    const line = { seq: ++this.seq, t_ms: Date.now() - this.t0, dir };
    if (http) line.http = http;
    line.msg = msg;
    this.lines.push(line);
    fs.writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }
  /** Messages only (msg !== null), optionally filtered by direction. */
  messages(dir) {
    return this.lines.filter((l) => l.msg !== null && (!dir || l.dir === dir)).map((l) => l.msg);
  }
  close() {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** Read a transcript back (array of line objects). */
export function readTranscript(file) {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
