/**
 * npm run serve: both services on their ports (KOREA_PORT, ANALYTICS_PORT), reading the latest
 * snapshots read-only and swapping in newer versions as the pipelines publish them.
 */
import { resolve } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { SERVICES, type ServiceName } from '../catalog/types.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { serviceApp } from './service-app.ts';

export interface RunningService {
  service: ServiceName;
  url: string;
  reader: SnapshotReader;
  server: ServerType;
}

export async function startServices(settings: Settings, siteDir = resolve('site/dist')): Promise<RunningService[]> {
  const running: RunningService[] = [];
  for (const service of SERVICES) {
    const reader = new SnapshotReader(settings.snapshotsDir, service, {
      onChange: (s) => console.log(`${service}: serving snapshot ${s.version}${s.fallbackReason ? ` (fallback: ${s.fallbackReason})` : ''}`),
      onError: (e) => console.error(`${service}: snapshot not loaded: ${e.message}`),
    });
    await reader.refresh();
    reader.watch();
    const app = serviceApp({ service, reader, settings, siteDir });
    const port = service === 'korea' ? settings.koreaPort : settings.analyticsPort;
    const server = await new Promise<ServerType>((resolveServer, reject) => {
      const s = serve({ fetch: app.fetch, port, hostname: settings.host }, () => resolveServer(s));
      s.once('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'EADDRINUSE' ? new Error(`${service}: port ${port} is already in use (set ${service === 'korea' ? 'KOREA_PORT' : 'ANALYTICS_PORT'})`) : err),
      );
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    running.push({ service, url: `http://${settings.host}:${actualPort}`, reader, server });
  }
  return running;
}

export function stopServices(running: readonly RunningService[]): Promise<void[]> {
  return Promise.all(
    running.map(
      (r) =>
        new Promise<void>((done) => {
          r.reader.close();
          r.server.close(() => done());
        }),
    ),
  );
}

async function main(): Promise<void> {
  const settings = loadSettings();
  const running = await startServices(settings);
  for (const r of running) {
    console.log(`${r.service.padEnd(9)} ${r.url}  (health ${r.url}/health)`);
  }
  const shutdown = () => {
    void stopServices(running).then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (process.argv[1]?.endsWith('proxy/serve.ts')) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
