/**
 * The restore before a run and the backup after it, as rows of the run table (`<service>/restore`,
 * `<service>/backup`), which pipelines/cli.ts runs around each service's pipeline when BACKUP_URL
 * is set.
 */
import type { ServiceName } from '../../catalog/types.ts';
import type { Settings } from '../../lib/config.ts';
import type { ProgressSink, StepReport } from '../progress.ts';
import { backupLine, backupNotDue, backupWarehouse, restoreIfMissing, restoreLine } from './backup.ts';

async function step(
  service: ServiceName,
  name: string,
  progress: ProgressSink,
  work: () => Promise<{ rows: number | null; detail: string } | null>,
): Promise<StepReport> {
  const report: StepReport = { service, name, status: 'running', rows: null, seconds: null, detail: null };
  const t0 = performance.now();
  try {
    const done = await work();
    if (!done) return { ...report, status: 'skipped', seconds: 0 };
    progress.start(report);
    report.status = 'ok';
    report.rows = done.rows;
    report.detail = done.detail;
  } catch (err) {
    progress.start(report);
    report.status = 'failed';
    report.detail = err instanceof Error ? err.message : String(err);
  }
  report.seconds = (performance.now() - t0) / 1000;
  progress.finish(report);
  return report;
}

/** Restores a missing or empty warehouse; status 'skipped' (not shown) when there was nothing to do. */
export function restoreStep(settings: Settings, service: ServiceName, progress: ProgressSink): Promise<StepReport> {
  return step(service, 'restore', progress, async () => {
    const restored = await restoreIfMissing(settings, service);
    if (restored === null) return null;
    if (restored === 'no backup') {
      return { rows: 0, detail: `the warehouse is missing and ${settings.backupUrl} holds no backup of ${service} yet: a fresh warehouse` };
    }
    return { rows: restored.rows, detail: restoreLine(restored, settings.backupUrl!) };
  });
}

/** Backs up the warehouse after a run; null when BACKUP_URL is unset. */
export async function backupStep(settings: Settings, service: ServiceName, progress: ProgressSink): Promise<StepReport | null> {
  if (!settings.backupUrl) return null;
  const notDue = backupNotDue(settings, service);
  if (notDue) {
    const report: StepReport = { service, name: 'backup', status: 'skipped', rows: null, seconds: 0, detail: notDue };
    progress.start(report);
    progress.finish(report);
    return report;
  }
  return step(service, 'backup', progress, async () => {
    const run = await backupWarehouse(settings, service);
    return { rows: run.rows, detail: backupLine(run, settings.backupUrl!) };
  });
}
