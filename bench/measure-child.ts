/**
 * Runs a script in this process and reports its peak RSS on exit (stderr `maxRssMb=N`), so a
 * benchmark can measure memory of one phase in isolation. usage: node --import tsx measure-child.ts SCRIPT ARGS...
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [script, ...rest] = process.argv.slice(2);
if (!script) throw new Error('usage: measure-child.ts SCRIPT [ARGS...]');
process.argv = [process.argv[0]!, resolve(script), ...rest];
process.on('exit', () => {
  process.stderr.write(`maxRssMb=${Math.round(process.resourceUsage().maxRSS / 1024)}\n`);
});
await import(pathToFileURL(resolve(script)).href);
