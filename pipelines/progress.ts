/**
 * Progress of a pipeline run: a live status board on a terminal, plain timestamped log lines
 * otherwise (CI, cron, files), and the summary table at the end.
 */
import { loadSettings, type Settings } from '../lib/config.ts';

export type StepStatus = 'pending' | 'running' | 'ok' | 'kept' | 'failed' | 'carried-over' | 'skipped';

export interface StepReport {
  service: string;
  name: string;
  status: StepStatus;
  rows: number | null;
  seconds: number | null;
  detail: string | null;
}

export interface ProgressSink {
  start(report: StepReport): void;
  finish(report: StepReport): void;
  note(message: string): void;
  close(): void;
}

const SYMBOL: Record<StepStatus, string> = {
  pending: '·',
  running: '…',
  ok: '✓',
  kept: '=',
  failed: '✗',
  'carried-over': '↺',
  skipped: '-',
};

function describe(r: StepReport): string {
  const rows = r.rows === null ? '' : ` ${r.rows.toLocaleString('en-US')} rows`;
  const secs = r.seconds === null ? '' : ` ${r.seconds.toFixed(2)}s`;
  const detail = r.detail ? ` (${r.detail})` : '';
  return `${r.service}/${r.name} ${r.status}${rows}${secs}${detail}`;
}

/** Plain lines, one per event: what logs and CI want. */
export class LineProgress implements ProgressSink {
  constructor(private readonly write: (line: string) => void = (l) => process.stderr.write(l + '\n')) {}
  start(r: StepReport): void {
    this.write(`${new Date().toISOString()} start ${r.service}/${r.name}`);
  }
  finish(r: StepReport): void {
    this.write(`${new Date().toISOString()} ${describe(r)}`);
  }
  note(message: string): void {
    this.write(`${new Date().toISOString()} ${message}`);
  }
  close(): void {}
}

/** A board redrawn in place on a TTY: every step with its state and a running clock. */
export class TerminalProgress implements ProgressSink {
  private readonly steps: StepReport[] = [];
  private readonly started = new Map<StepReport, number>();
  private drawnLines = 0;
  private timer: NodeJS.Timeout;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.timer = setInterval(() => this.draw(), 200);
    this.timer.unref();
  }
  start(r: StepReport): void {
    this.steps.push(r);
    this.started.set(r, Date.now());
    this.draw();
  }
  finish(_r: StepReport): void {
    this.draw();
  }
  note(message: string): void {
    this.clear();
    this.stream.write(message + '\n');
    this.drawnLines = 0;
    this.draw();
  }
  close(): void {
    clearInterval(this.timer);
    this.draw();
  }
  private clear(): void {
    if (this.drawnLines > 0) this.stream.write(`\x1b[${this.drawnLines}A\x1b[0J`);
  }
  private draw(): void {
    this.clear();
    const lines = this.steps.map((r) => {
      if (r.status === 'running') {
        const secs = (Date.now() - (this.started.get(r) ?? Date.now())) / 1000;
        return `  ${SYMBOL.running} ${r.service}/${r.name} running ${secs.toFixed(1)}s`;
      }
      return `  ${SYMBOL[r.status]} ${describe(r)}`;
    });
    if (lines.length) this.stream.write(lines.join('\n') + '\n');
    this.drawnLines = lines.length;
  }
}

/** The live board on a terminal, plain log lines elsewhere and under CI (the CI setting). */
export function progressFor(stream: NodeJS.WriteStream = process.stderr, settings?: Pick<Settings, 'ci'>): ProgressSink {
  return stream.isTTY && !(settings ?? loadSettings()).ci ? new TerminalProgress(stream) : new LineProgress();
}

/** The summary table printed at the end of a run. */
export function summaryTable(reports: readonly StepReport[]): string {
  const header = ['step', 'rows', 'seconds', 'status'];
  const body = reports.map((r) => [
    `${r.service}/${r.name}`,
    r.rows === null ? '-' : r.rows.toLocaleString('en-US'),
    r.seconds === null ? '-' : r.seconds.toFixed(2),
    r.status + (r.detail ? `: ${r.detail}` : ''),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const fmt = (row: string[]) =>
    row
      .map((cell, i) => (i === 1 || i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)].join('\n');
}
