/**
 * The proxy bench's load generator in a process of its own, so that nothing else (the bench's
 * payment signing, its bookkeeping) runs on its event loop or fills its heap: a pause of the
 * generator would show up as latency of the server under test.
 * usage: node --import tsx bench/load-child.ts <spec.json>
 * spec: LoadOptions without `headers`, plus `headerName` and `headerValuesFile` (one value per
 * line; request i carries value i) for per-request headers. Prints one JSON line: the LoadResult.
 */
import { readFileSync } from 'node:fs';
import { runLoad, type LoadOptions } from './load.ts';

type Spec = Omit<LoadOptions, 'headers'> & { headerName?: string; headerValuesFile?: string };

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Spec;
let values: string[] | null = spec.headerValuesFile ? readFileSync(spec.headerValuesFile, 'utf8').split('\n').filter(Boolean) : null;
const name = spec.headerName ?? 'X-PAYMENT';
const options: LoadOptions = { ...spec };
if (values) {
  options.headers = (i) => {
    const value = values?.[i];
    if (value === undefined) throw new Error('load: ran out of pre-built header values');
    return { [name]: value };
  };
  options.prebuild = values.length;
}
// runLoad builds every request before its first await: the strings they came from can go now
const running = runLoad(options);
values = null;
const result = await running;
process.stdout.write(JSON.stringify(result) + '\n');
