// Starts a worker thread of the worker pool (workers/pool.ts): TypeScript sources load
// through tsx, as in the main thread, then the worker's entry takes over.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
