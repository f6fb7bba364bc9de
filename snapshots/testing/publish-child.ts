/**
 * A publish run for the crash tests: writes a snapshot of a few datasets and reports each stage
 * on stdout. With `--pause-at STAGE` it stops after that stage and waits (forever) so the test can
 * kill it exactly there; with `--slow` it sleeps a little between stages for random-time kills.
 *
 * usage: tsx snapshots/testing/publish-child.ts ROOT MARK [--pause-at STAGE] [--slow]
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { SnapshotWriter } from '../writer.ts';

const [root, mark, ...rest] = process.argv.slice(2);
if (!root || !mark) throw new Error('usage: publish-child ROOT MARK [--pause-at STAGE] [--slow]');
const pauseAt = rest.includes('--pause-at') ? rest[rest.indexOf('--pause-at') + 1] : undefined;
const slow = rest.includes('--slow');

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
await connection.run(`CREATE TABLE t AS SELECT i AS id, '${mark}-' || i AS label, i * 1.5 AS value FROM range(200000) r(i)`);

const writer = await SnapshotWriter.begin({
  root,
  service: 'crashy',
  codeVersion: 'test',
  retention: 3,
  async onStage(stage) {
    process.stdout.write(`stage ${stage}\n`);
    if (stage === pauseAt) {
      await new Promise(() => {}); // hold here until killed
    }
    if (slow) await new Promise((r) => setTimeout(r, 15));
  },
});
const meta = { source: 'demo' as const, asOf: '2026-11-20T00:00:00Z', license: 'CC0-1.0' as const, description: 'crash test' };
await writer.writeTable(connection, 'big-table', 'SELECT * FROM t ORDER BY id', meta);
await writer.writeDocument('doc-a', { mark, items: Array.from({ length: 20000 }, (_, i) => ({ i, mark })) }, meta);
await writer.writeDocument('doc-b', [mark, 1, 2, 3], meta);
await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T01:00:00Z') });
process.stdout.write('done\n');
connection.closeSync();
instance.closeSync();
