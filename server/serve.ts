/**
 * `switchboard serve`: Miniflare on a random loopback port running the bundled worker, and the
 * Node front as the only public listener. Prints `Switchboard listening on URL` once both are up
 * and the first administrator is settled; SIGINT/SIGTERM close the listener, let requests in
 * flight finish, dispose Miniflare and exit 0.
 */
import { readFileSync } from 'node:fs';
import { HOLD_WAIT_MS, snapshotDataDir, sweepSnapshots } from './backup.js';
import { settleCatalog } from './catalog-settle.js';
import type { ServeConfig } from './config.js';
import { publicUrl } from './config.js';
import { type ControlServer, startControlServer } from './control.js';
import {
  dataDirLayout,
  loadOrCreatePepper,
  newFrontSecret,
  prepareDataDir,
  removeLauncherInfo,
  sweepPartialBlobs,
  writeLauncherInfo,
} from './data-dir.js';
import { announceDiagnostics, diagnosticsFromEnv } from './diagnostics.js';
import { ensureFirstAdmin } from './first-admin.js';
import { createFront } from './front.js';
import { HostMetrics } from './host-metrics.js';
import { serverNames } from './host-names.js';
import { ServerLog } from './log.js';
import { socketLimitsFromEnv } from './socket-guard.js';
import { startWorkerRuntime, type WorkerRuntime } from './worker-runtime.js';

function readTls(config: ServeConfig): { cert: Buffer; key: Buffer } | undefined {
  if (!config.tls) return undefined;
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`Cannot read the TLS ${what} ${file}: ${(error as Error).message}`);
    }
  };
  return { cert: read(config.tls.certFile, 'certificate'), key: read(config.tls.keyFile, 'key') };
}

export async function serve(config: ServeConfig): Promise<void> {
  const diagnostics = diagnosticsFromEnv(process.env);
  const log = new ServerLog(config.logFormat);
  const limits = socketLimitsFromEnv(process.env);
  const tls = readTls(config);
  announceDiagnostics(diagnostics, (text) => process.stderr.write(text));
  const layout = dataDirLayout(config.dataDir);
  prepareDataDir(layout);
  sweepPartialBlobs(layout);
  sweepSnapshots(layout);
  const keyPepper = loadOrCreatePepper(layout.pepperFile);
  const frontSecret = newFrontSecret();

  const metrics = new HostMetrics(layout.root);
  await metrics.start();

  const startRuntime = () =>
    startWorkerRuntime({
      persistRoot: layout.state,
      keyPepper,
      frontSecret,
      metrics: () => metrics.read(),
      diagnostics,
      ...(log.json && {
        onWorkerLog: ({ message, level }) =>
          log.event('worker_log', message, { level: level === 'error' ? 'error' : level === 'warn' ? 'warn' : 'info' }),
      }),
      allowedHosts: serverNames(config.host, process.env.SWITCHBOARD_ALLOWED_HOSTS),
    });
  // Nothing is served yet, so every upload lease left is a previous boot's (or, after a snapshot,
  // the stopped workerd's), dead with it.
  const releaseUploads = async (started: WorkerRuntime) => {
    try {
      await (await started.retention()).releasePreviousBootUploads();
    } catch (error) {
      await started.dispose().catch(() => {});
      throw new Error(`Cannot release the previous run's uploads: ${(error as Error).message}`);
    }
  };
  let runtime: WorkerRuntime = await startRuntime();
  await releaseUploads(runtime);
  try {
    await settleCatalog(runtime);
  } catch (error) {
    await runtime.dispose().catch(() => {});
    throw new Error(`Cannot bring the channel catalog up to date: ${(error as Error).message}`);
  }

  const front = createFront({
    upstream: runtime.url,
    direct: runtime.directUrl,
    secret: frontSecret,
    tls,
    limits,
    log,
  });
  let port: number;
  try {
    port = await front.listen(config.host, config.port);
  } catch (error) {
    await runtime.dispose().catch(() => {});
    throw new Error(`Cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }
  const url = publicUrl(config.host, port, tls !== undefined);

  // An online backup's snapshot (backup.ts): with the front holding new requests and none running,
  // workerd stops, so no SQLite file or alarm writes while the files are copied; then it starts
  // again on the same state and the held requests go through.
  const snapshot = async () => {
    await front.hold(HOLD_WAIT_MS);
    const paused = performance.now();
    try {
      await runtime.dispose();
      let dir: string;
      try {
        dir = snapshotDataDir(layout);
      } finally {
        try {
          runtime = await startRuntime();
          ownSignals();
          await releaseUploads(runtime);
        } catch (error) {
          // Without workerd the server cannot serve: exit, so the service manager restarts it.
          log.event('fatal', `Switchboard: cannot restart the worker after a snapshot: ${(error as Error).message}`, {
            level: 'error',
            stream: 'stderr',
          });
          process.exit(1);
        }
      }
      const pausedMs = Math.round(performance.now() - paused);
      log.event('snapshot', `Switchboard: backup snapshot taken (requests held for ${pausedMs} ms).`, {
        fields: { paused_ms: pausedMs },
      });
      return { dir };
    } finally {
      front.resume({ upstream: runtime.url, direct: runtime.directUrl });
    }
  };
  let control: ControlServer;
  try {
    control = await startControlServer({ snapshot });
  } catch (error) {
    await front.close(0);
    await runtime.dispose().catch(() => {});
    throw new Error(`Cannot open the control socket: ${(error as Error).message}`);
  }

  let shuttingDown = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      // A second signal: the operator does not want to wait for requests in flight.
      process.exit(1);
    }
    shuttingDown = true;
    log.event('shutdown', `Switchboard: ${signal} received, shutting down.`, {
      stream: 'stderr',
      fields: { signal },
    });
    await front.close();
    await control.close();
    await runtime.dispose().catch(() => {});
    removeLauncherInfo(layout);
    if (log.json) log.event('stopped', 'Switchboard: stopped.');
    process.exit(0);
  };
  // Miniflare installs SIGINT/SIGTERM handlers that kill workerd and exit at once with 130/143,
  // cutting requests in flight; the launcher owns the process and shuts down in order instead.
  // Each start of Miniflare installs them again (snapshot above).
  const ownSignals = () => {
    process.removeAllListeners('SIGINT');
    process.removeAllListeners('SIGTERM');
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  };
  ownSignals();

  try {
    const outcome = await ensureFirstAdmin(await runtime.registry(), config.adminPassword, url);
    if (outcome.kind === 'created') {
      log.event('admin_created', `Created administrator "${outcome.username}" from SWITCHBOARD_ADMIN_PASSWORD.`, {
        fields: { admin: outcome.username },
      });
    } else if (outcome.kind === 'setup-link') {
      const text =
        'No administrator exists yet. Open this one-time link to create one ' +
        '(it works once; every start prints a new one until an administrator exists):\n' +
        `  ${outcome.link}\n`;
      if (log.json) {
        // The link carries a one-time token, which no JSON log line may: it goes to stderr.
        process.stderr.write(text);
        log.event('setup_link', 'No administrator exists yet: the one-time setup link is on stderr.', {
          level: 'warn',
        });
      } else {
        process.stdout.write(text);
      }
    }
  } catch (error) {
    await front.close(0);
    await control.close();
    await runtime.dispose().catch(() => {});
    throw error;
  }

  writeLauncherInfo(layout, {
    pid: process.pid,
    public_url: url,
    internal_url: runtime.url.origin,
    control_url: control.url,
    control_secret: control.secret,
  });
  log.event('listening', `Switchboard listening on ${url}`, { fields: { url, tls: tls !== undefined } });
  if (log.json) log.raw(`Switchboard listening on ${url}\n`);
}
