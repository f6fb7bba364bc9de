/**
 * Runs one service's pipeline in three phases: ingest (the source fills the warehouse's raw
 * tables), prepare (the pipeline derives from them what several datasets share: attribution,
 * classification, rollups, the news store), then one step per dataset, and publishes the
 * snapshot. A failed step never blocks the others: its dataset keeps the last good file (carried
 * over, marked with the reason) and the run's exit code says that something failed.
 */
import type { ServiceName } from '../catalog/types.ts';
import { findDataset } from '../catalog/datasets.ts';
import type { Settings } from '../lib/config.ts';
import { codeVersion } from '../lib/config.ts';
import type { AiUsage, DatasetAi, DatasetEntry, SnapshotManifest } from '../snapshots/manifest.ts';
import { createAnalyst, type Analyst } from './analyst/index.ts';
import { SnapshotWriter, type DatasetMeta } from '../snapshots/writer.ts';
import { sourceKindOf, type IngestContext, type IngestStep, type SourceSpec } from '../sources/contract.ts';
import type { SourceKind } from '../sources/raw-tables.ts';
import { IndexingTally } from '../sources/indexing.ts';
import type { ProgressSink, StepReport } from './progress.ts';
import { openWarehouse } from './warehouse.ts';
import { nextScheduledRun, scheduleTableFor } from './schedule-table.ts';

export interface RunParams {
  source: SourceSpec;
  /** The run's "now": what time the data should describe (demo) or was fetched at (live). */
  now: Date;
  seed: number;
  scale: number;
  /** Recompute every dataset now, even those whose cadence says they are not due (model answers still come from the cache). */
  recompute?: boolean;
  /**
   * Recompute everything from the warehouse and write every dataset whole, none extended from
   * the live version (the append-only tables' delta files are folded into their parts).
   */
  rebuild?: boolean;
  /**
   * Compute only these datasets (a scheduled group, e.g. the market datasets every 5 minutes);
   * every other dataset keeps its live version (status 'kept'), or is computed when it has none.
   * Absent = every dataset (cadence still applies).
   */
  datasets?: readonly string[];
}

/** What prepare and dataset steps get: the ingest context, the snapshot writer, the analyst and the catalog's view of the run. */
export interface PipelineContext extends IngestContext, RunParams {
  service: ServiceName;
  writer: SnapshotWriter;
  settings: Settings;
  /** The run's analyst: Claude with ANTHROPIC_API_KEY, else the offline rules analyst. */
  analyst: Analyst;
  /** Metadata for a dataset of this service from the catalog, with this run's source and time (and who wrote its AI fields). */
  meta(dataset: string, asOf: Date | string, ai?: DatasetAi): DatasetMeta;
  /**
   * Names the inputs every dataset this run computes rests on (korea: the price snapshot, the FX
   * rate and the article set: pipelines/korea/run-picture.ts); meta() adds them to each dataset
   * written after, and the manifest carries them (`inputs`).
   */
  setRunInputs(inputs: Record<string, string>): void;
  /** Whether a dataset with a cadence is due in this run (see DatasetStep.cadence). */
  isDue(dataset: string): boolean;
}

/**
 * A step of the prepare phase: derives, from the raw tables, warehouse tables that several
 * datasets read (payment attribution, buyer labels, rollups, the news store). Shown as
 * 'prepare:<name>' in progress and the summary.
 */
export interface PrepareStep {
  name: string;
  /** Tables this step (re)creates; they are dropped before the run so a failure leaves no stale rows. */
  tables: readonly string[];
  /** As IngestStep.datasets: a run restricted to other datasets skips the step. */
  datasets?: readonly string[];
  /** Rows made, or rows and a line for the run table (what the step decided and why). */
  run(ctx: PipelineContext): Promise<number | { rows: number; detail: string }>;
}

export interface DatasetStep {
  dataset: string;
  /**
   * Recompute only when due: the dataset's update interval (catalog) has passed since the live
   * version's as_of, or that version was carried over, came from another kind of source or from
   * another analyst or model. Otherwise the live file is kept as it is (status 'kept'). Products
   * that cost model calls follow the cache lifetimes of docs/services.md ("Korea cache lifetimes") this way.
   */
  cadence?: boolean;
  run(ctx: PipelineContext): Promise<DatasetEntry>;
}

export interface ServicePipeline {
  service: ServiceName;
  /** The source's steps that fill the raw tables; throws UnsupportedSourceError for a source this service cannot read. */
  ingestSteps(source: SourceSpec, settings: Settings): IngestStep[];
  /** What the datasets share, derived from the raw tables after every ingest step ran. */
  prepareSteps: PrepareStep[];
  datasetSteps: DatasetStep[];
  /** When the next run is expected (the manifest's next_expected_update). */
  updateEverySeconds: number;
  /** The day state a run's labels rest on (analytics), stamped on the datasets that declare cohortState. */
  cohortStateAsOf?(now: Date): string;
}

export interface RunResult {
  service: ServiceName;
  reports: StepReport[];
  manifest: SnapshotManifest | null;
  /** True when every step succeeded. */
  ok: boolean;
  error: string | null;
  /** What the analyst did and cost, when the run wrote AI fields. */
  ai: AiUsage | null;
}

/** A cadence step runs up to this long before its interval is over, so runs on a whole-minute schedule never skip a slot. */
const CADENCE_SLACK_MS = 30_000;

/** Why a cadence dataset is not due (its live version is kept), or null when it is due. */
export function notDueReason(
  previous: DatasetEntry | undefined,
  now: Date,
  everySeconds: number,
  current: { sourceKind: SourceKind; analyst: Analyst },
): string | null {
  if (!previous || previous.carried_over) return null;
  if (previous.source !== current.sourceKind) return null;
  if (previous.ai) {
    if (previous.ai.analyst !== current.analyst.kind) return null;
    const models = new Set([current.analyst.modelOf('fast'), current.analyst.modelOf('deep')]);
    if (previous.ai.models.some((m) => !models.has(m))) return null;
  }
  const dueAt = Date.parse(previous.as_of) + everySeconds * 1000;
  if (now.getTime() >= dueAt - CADENCE_SLACK_MS) return null;
  return `not due until ${new Date(dueAt).toISOString()} (every ${everySeconds}s)`;
}

/** A run's error when its signal stopped it before publishing. */
export const STOPPED = 'stopped before publishing; the previous snapshot stays live';

function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.slice(0, 300);
}

export async function runPipeline(
  pipeline: ServicePipeline,
  params: RunParams,
  settings: Settings,
  progress: ProgressSink,
  options: {
    generatedAt?: Date;
    /**
     * Runs on the verified new version before it goes live (the analytics site build); shown as a
     * step of the run. A failure keeps the previous version live.
     */
    beforeLive?: (versionDir: string, manifest: SnapshotManifest) => Promise<{ rows: number; detail: string | null }>;
    /** The beforeLive step's name in the run table. */
    beforeLiveName?: string;
    /**
     * Stops the run between steps (the scheduler's SIGTERM): the running step finishes, nothing
     * is published and the previous version stays live. A publish already under way completes.
     */
    signal?: AbortSignal;
  } = {},
): Promise<RunResult> {
  const { service } = pipeline;
  const { signal } = options;
  const reports: StepReport[] = [];
  const ingest = pipeline.ingestSteps(params.source, settings); // throws for an unsupported source: nothing to clean up yet
  const generatedAt = options.generatedAt ?? new Date();
  const warehouse = await openWarehouse(settings.warehouseDir, service, {
    memoryLimit: settings.duckdbMemoryLimit ?? undefined,
  });
  let writer: SnapshotWriter | null = null;
  const stopped = (): RunResult => {
    writer?.abort();
    return { service, reports, manifest: null, ok: false, error: STOPPED, ai: null };
  };
  const beforeLiveStep =
    (hook: NonNullable<typeof options.beforeLive>, name: string) =>
    async (versionDir: string, manifest: SnapshotManifest): Promise<void> => {
      const report: StepReport = { service, name, status: 'running', rows: null, seconds: null, detail: null };
      reports.push(report);
      progress.start(report);
      const t0 = performance.now();
      try {
        const done = await hook(versionDir, manifest);
        report.rows = done.rows;
        report.detail = done.detail;
        report.status = 'ok';
      } catch (err) {
        report.status = 'failed';
        report.detail = errorText(err);
        throw err;
      } finally {
        report.seconds = (performance.now() - t0) / 1000;
        progress.finish(report);
      }
    };
  try {
    writer = await SnapshotWriter.begin({
      root: settings.snapshotsDir,
      service,
      codeVersion: codeVersion(),
      generatedAt,
      retention: settings.snapshotRetention,
      ...(options.beforeLive ? { beforeLive: beforeLiveStep(options.beforeLive, options.beforeLiveName ?? 'before-live') } : {}),
    });
    const log = (m: string) => progress.note(`${service}: ${m}`);
    const analyst = createAnalyst(settings, warehouse.connection, params.now, log);
    const indexing = new IndexingTally();
    let runInputs: Record<string, string> | null = null;
    const liveWriter = writer;
    const ctx: PipelineContext = {
      ...params,
      service,
      connection: warehouse.connection,
      ...(warehouse.path === ':memory:' ? {} : { warehouseDir: settings.warehouseDir }),
      writer,
      sourceKind: sourceKindOf(params.source),
      settings,
      analyst,
      log,
      indexing,
      setRunInputs(inputs) {
        runInputs = { ...inputs };
      },
      meta(dataset, asOf, ai) {
        const decl = findDataset(service, dataset);
        if (!decl) throw new Error(`dataset ${service}/${dataset} is not declared in catalog/datasets.ts`);
        const cohort = decl.cohortState && pipeline.cohortStateAsOf ? { cohortStateAsOf: pipeline.cohortStateAsOf(params.now) } : {};
        return {
          source: sourceKindOf(params.source),
          asOf,
          license: decl.license,
          description: decl.description,
          ...(ai ? { ai } : {}),
          ...cohort,
          ...(runInputs ? { inputs: runInputs } : {}),
        };
      },
      isDue(dataset) {
        const previous = liveWriter.previousManifest?.datasets.find((d) => d.name === dataset);
        if (params.datasets && !params.datasets.includes(dataset) && previous) return false;
        if (params.recompute) return true;
        const decl = findDataset(service, dataset);
        if (!decl) return true;
        return notDueReason(previous, params.now, decl.updateEverySeconds, { sourceKind: sourceKindOf(params.source), analyst }) === null;
      },
    };

    // a run restricted to some datasets skips the steps only other datasets read (their tables stay)
    const wanted = params.datasets;
    const needed = (datasets: readonly string[] | undefined): boolean => !wanted || !datasets || datasets.some((d) => wanted.includes(d));
    const steps = [
      ...ingest.map((step) => ({ label: step.name, tables: step.tables, needed: needed(step.datasets), run: () => step.run(ctx) })),
      ...pipeline.prepareSteps.map((step) => ({
        label: `prepare:${step.name}`,
        tables: step.tables,
        needed: needed(step.datasets),
        run: () => step.run(ctx),
      })),
    ];
    for (const step of steps) {
      if (!step.needed) continue;
      for (const table of step.tables) await warehouse.connection.run(`DROP TABLE IF EXISTS ${table}`);
    }
    for (const step of steps) {
      if (signal?.aborted) return stopped();
      const report: StepReport = { service, name: step.label, status: 'running', rows: null, seconds: null, detail: null };
      reports.push(report);
      progress.start(report);
      if (!step.needed) {
        report.status = 'skipped';
        report.detail = "not read by this run's datasets: its tables stay as the last run made them";
        report.seconds = 0;
        progress.finish(report);
        continue;
      }
      const t0 = performance.now();
      try {
        const done = await step.run();
        if (typeof done === 'number') report.rows = done;
        else {
          report.rows = done.rows;
          report.detail = done.detail;
        }
        report.status = 'ok';
      } catch (err) {
        report.status = 'failed';
        report.detail = errorText(err);
      }
      report.seconds = (performance.now() - t0) / 1000;
      progress.finish(report);
    }

    let produced = 0;
    for (const step of pipeline.datasetSteps) {
      if (signal?.aborted) return stopped();
      const report: StepReport = { service, name: step.dataset, status: 'running', rows: null, seconds: null, detail: null };
      reports.push(report);
      progress.start(report);
      const t0 = performance.now();
      if (params.datasets && !params.datasets.includes(step.dataset)) {
        const kept = await writer.keep(step.dataset);
        if (kept) {
          report.status = 'kept';
          report.rows = kept.rows;
          report.detail = `${kept.produced_in}: not in this run's datasets`;
          report.seconds = (performance.now() - t0) / 1000;
          produced++;
          progress.finish(report);
          continue;
        }
      }
      if (step.cadence && !params.recompute) {
        const decl = findDataset(service, step.dataset);
        const previous = writer.previousManifest?.datasets.find((d) => d.name === step.dataset);
        const reason = decl ? notDueReason(previous, params.now, decl.updateEverySeconds, { sourceKind: ctx.sourceKind, analyst }) : null;
        const kept = reason ? await writer.keep(step.dataset) : null;
        if (kept) {
          report.status = 'kept';
          report.rows = kept.rows;
          report.detail = `${kept.produced_in}: ${reason}`;
          report.seconds = (performance.now() - t0) / 1000;
          produced++;
          progress.finish(report);
          continue;
        }
      }
      try {
        const entry = await step.run(ctx);
        if (entry.name !== step.dataset) throw new Error(`step wrote "${entry.name}", expected "${step.dataset}"`);
        report.rows = entry.rows;
        report.status = 'ok';
        produced++;
      } catch (err) {
        const reason = errorText(err);
        let kept: DatasetEntry | null = null;
        try {
          kept = await writer.carryOver(step.dataset, reason);
        } catch {
          kept = null;
        }
        report.status = kept ? 'carried-over' : 'failed';
        report.detail = kept ? `kept ${kept.produced_in}: ${reason}` : reason;
      }
      report.seconds = (performance.now() - t0) / 1000;
      progress.finish(report);
    }

    if (signal?.aborted) return stopped();
    if (produced === 0) {
      writer.abort();
      return {
        service,
        reports,
        manifest: null,
        ok: false,
        error: 'no dataset could be computed; the previous snapshot stays live',
        ai: null,
      };
    }
    const notice =
      params.source.kind === 'demo'
        ? 'Synthetic data from the seeded demo world (source "demo"): realistic shapes, not real market activity.'
        : null;
    const ai = analyst.used() ? await analyst.usage() : null;
    const publishStarted = performance.now();
    const manifest = await writer.publish({
      // the schedule table's next slot for this service (demo analytics: 15 minutes, not the hour of live data)
      nextExpectedUpdate:
        nextScheduledRun(scheduleTableFor(params.source.kind), service, generatedAt) ??
        new Date(generatedAt.getTime() + pipeline.updateEverySeconds * 1000),
      notice,
      ai,
      // a run that indexed nothing (a probe-only run) keeps the indexing of the run its payments came from
      indexing: indexing.touched
        ? { ...indexing.summary(), indexed_at: generatedAt.toISOString() }
        : params.source.kind === 'live'
          ? (writer.previousManifest?.indexing ?? null)
          : null,
    });
    progress.note(
      `${service}: published ${manifest.version} (${manifest.datasets.length} datasets) in ${((performance.now() - publishStarted) / 1000).toFixed(2)}s`,
    );
    const ok = reports.every((r) => r.status === 'ok' || r.status === 'kept' || r.status === 'skipped');
    return { service, reports, manifest, ok, error: null, ai };
  } catch (err) {
    writer?.abort();
    return { service, reports, manifest: null, ok: false, error: errorText(err), ai: null };
  } finally {
    warehouse.close();
  }
}
