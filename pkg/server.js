// The public API of `longcall/server`, shared by its two entry points (server-node.js,
// server-web.js): the core's reference servers (an MCP task registry and a Sume job book) and the
// 2026 wire rendering of a task, so a JavaScript server never re-implements the wire. A module
// of its own, so clients never download it.
export {
  TaskRegistry,
  JobBook,
  renderTask2026,
  missingCapability2026,
  gateRequest,
  gateTaskSupport,
  httpStatusFor,
} from './dist/longcall_server.js';
