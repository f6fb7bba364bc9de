// Entry of a crypto worker thread (crypto-pool.ts): makes TypeScript importable in this thread, then hands piscina crypto-worker.ts's task function.
import { register } from 'tsx/esm/api';

register();
const worker = await import(new URL('./crypto-worker.ts', import.meta.url).href);
export default worker.default;
