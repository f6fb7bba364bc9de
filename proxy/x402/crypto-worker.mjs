// Entry of a crypto worker thread (crypto-pool.ts): makes TypeScript importable in this thread, then runs crypto-worker.ts.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./crypto-worker.ts', import.meta.url).href);
