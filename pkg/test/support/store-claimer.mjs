// A host process for the SIGKILL lease test: claims every call that needs a host with a 5 s
// lease (at time 1000), tells the parent how many, then waits to be killed.
import { pgStore } from '../../store/index.js';

const [url, table, owner] = process.argv.slice(2);
const s = await pgStore({ connectionString: url, table });
const got = await s.claim({ owner, now: 1000, leaseMs: 5000, limit: 1000 });
process.send(got.length);
setInterval(() => {}, 1 << 30);
