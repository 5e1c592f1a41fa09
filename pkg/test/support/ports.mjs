// Loopback ports for tests of what a host does when nothing answers.
import { createServer } from 'node:net';

/** A loopback port nothing listens on: bound by a server, then closed. */
export async function closedPort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}
