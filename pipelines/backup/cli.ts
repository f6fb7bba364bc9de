/**
 * npm run backup -- <korea|analytics|all>
 * npm run restore -- <korea|analytics|all> [--backup ID] [--list]
 *
 * By hand, what every pipeline run does by itself when BACKUP_URL is set (docs/backup.md): back up
 * what the warehouse cannot recompute, or restore a missing warehouse from the newest whole backup
 * (or the one named; `--list` shows them). Run neither while a pipeline of the service runs.
 * Exit codes: 0 done; 1 it failed or was refused (the message says why); 2 bad arguments or settings.
 */
import type { ServiceName } from '../../catalog/types.ts';
import { splitArgs, UsageError } from '../../lib/args.ts';
import { loadSettings, type Settings } from '../../lib/config.ts';
import { backupLine, backupWarehouse, restoreLine, restoreScheduleState, restoreWarehouse } from './backup.ts';
import { backupTargetOf } from './target.ts';

export const BACKUP_USAGE = 'usage: npm run backup -- <korea|analytics|all>';
export const RESTORE_USAGE = 'usage: npm run restore -- <korea|analytics|all> [--backup ID] [--list]';

function servicesOf(positional: readonly string[], usage: string): ServiceName[] {
  const which = positional[0];
  if (positional.length !== 1 || (which !== 'korea' && which !== 'analytics' && which !== 'all')) {
    throw new UsageError(`name one service: korea, analytics or all\n${usage}`);
  }
  return which === 'all' ? ['korea', 'analytics'] : [which];
}

function requireTarget(settings: Settings): string {
  if (!settings.backupUrl) throw new UsageError('BACKUP_URL is not set: name the backup directory (README "Settings")');
  return settings.backupUrl;
}

export async function backupCli(argv: readonly string[], settings: Settings, out: (line: string) => void): Promise<number> {
  const { positional } = splitArgs(argv, [], BACKUP_USAGE);
  const services = servicesOf(positional, BACKUP_USAGE);
  const where = requireTarget(settings);
  let code = 0;
  for (const service of services) {
    try {
      out(`${service}: backed up ${backupLine(await backupWarehouse(settings, service), where)}`);
    } catch (err) {
      out(`${service}: backup FAILED: ${(err as Error).message}`);
      code = 1;
    }
  }
  return code;
}

export async function restoreCli(argv: readonly string[], settings: Settings, out: (line: string) => void): Promise<number> {
  const { positional, flags } = splitArgs(argv, ['backup'], RESTORE_USAGE, ['list']);
  const services = servicesOf(positional, RESTORE_USAGE);
  const where = requireTarget(settings);
  const id = flags.get('backup');
  if (id !== undefined && services.length !== 1)
    throw new UsageError(`--backup names one service's backup: name korea or analytics\n${RESTORE_USAGE}`);
  if (flags.has('list')) {
    const target = backupTargetOf(where);
    for (const service of services) out(`${service}: ${target.list(service).join(' ') || 'no backups'} (at ${where})`);
    return 0;
  }
  let code = 0;
  for (const service of services) {
    try {
      const run = await restoreWarehouse(settings, service, id ? { id } : {});
      out(run ? `${service}: ${restoreLine(run, where).replace('the warehouse was missing: ', '')}` : `${service}: no backup at ${where}`);
      if (!run) code = 1;
    } catch (err) {
      out(`${service}: restore FAILED: ${(err as Error).message}`);
      code = 1;
    }
  }
  const state = await restoreScheduleState(settings);
  if (state) out(`schedule state restored from ${state}`);
  return code;
}

async function main(which: 'backup' | 'restore'): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const settings = loadSettings();
    const argv = process.argv.slice(3);
    process.exit(which === 'backup' ? await backupCli(argv, settings, out) : await restoreCli(argv, settings, out));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
}

if (process.argv[1]?.endsWith('pipelines/backup/cli.ts')) {
  const which = process.argv[2];
  if (which !== 'backup' && which !== 'restore') {
    process.stderr.write(`${BACKUP_USAGE}\n${RESTORE_USAGE}\n`);
    process.exit(2);
  }
  await main(which);
}
