// What each call of the fleet test watches, shared by the hosts (fleet-host.mjs) and the test
// that judges them (fleet.test.mjs).

// The tasks that only run take 3 s, long enough for a press on a loaded machine to land first.
/** What call `call` watches: its model and what creates it. */
export function kindOf(call) {
  switch (call % 4) {
    case 0:
      return {
        model: 'task-2026',
        request: { name: 'slow_compute', arguments: { seconds: 3, label: `call-${call}` } },
      };
    case 1:
      return { model: 'task-2026', request: { name: 'confirm_delete', arguments: { filename: `call-${call}` } } };
    case 2:
      return {
        model: 'task-2025',
        request: { name: 'slow_compute', arguments: { seconds: 3, label: `call-${call}` } },
      };
    default:
      return {
        model: 'job',
        request: { model: 'demo-image', prompt: `frame ${call}` },
        idempotencyKey: `key-${call}`,
      };
  }
}
