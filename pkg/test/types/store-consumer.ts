// Type-checks a watch list host against longcall/store's declarations: camelCase in and out.
import { pump, sqliteStore, WatchList, type WatchOutput } from 'longcall/store';

const list = new WatchList({ durable: true, maxCreateResends: 2 });
list.addNew(1, { model: 'job', request: { prompt: 'a' }, idempotencyKey: 'k1' });
list.handle(0, 1, { type: 'job_created', job: { id: 'job_1', status: 'queued' } });
list.handle(0, 1, { type: 'task_polled', task: { taskId: 't', status: 'working', pollIntervalMs: 200 } });
// @ts-expect-error: the watch list speaks camelCase, like the rest of the package
list.addNew(2, { model: 'job', request: {}, idempotency_key: 'k2' });
const margin: number = WatchList.leaseMarginMs(30_000);
const saved = list.saveCall(1);
const wake: number | null = saved.nextWakeAt;
const cancel = list.record(1)?.cancel;
const store = await sqliteStore(':memory:');
await pump(
  list,
  store,
  (o: WatchOutput) => {
    if (o.type === 'call' && o.output.type === 'send' && o.output.request.kind === 'cancel') {
      const key: string | null | undefined = o.output.request.idempotencyKey;
      console.log(key);
    }
  },
  () => ({ owner: 'h', now: Date.now(), leaseMs: 30_000 }),
);
console.log(margin, wake, cancel);
// In a fleet, whether a call is new is the store's to say: another host may hold it.
const held = await store.get(1);
if (held === null) list.addNew(1, { model: 'job', request: {}, idempotencyKey: 'k1' });
else console.log(held.owner, held.leaseUntil);
