// Entry of a crypto worker thread (crypto-pool.ts): makes TypeScript importable in this thread, then hands piscina crypto-worker.ts's task functions.
import { register } from 'tsx/esm/api';

register();
const worker = await import(new URL('./crypto-worker.ts', import.meta.url).href);
export const verify = worker.verify;
export const sign = worker.sign;
