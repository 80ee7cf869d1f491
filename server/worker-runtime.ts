/**
 * The bundled worker (dist/worker, the same bundle `wrangler deploy` uploads) in Miniflare, on a
 * random loopback port that only the front talks to. Bindings come from
 * dist/worker/miniflare-options.json, which the build derives from wrangler.toml
 * (derive-worker-options.mjs), so they are declared once. Secrets and the host metrics service
 * are the launcher's own additions.
 *
 * Miniflare runs a second listener, its loopback server, through which workerd calls back into
 * Node (service bindings such as HOST_METRICS, logs, temp files, storage listings). Upstream it
 * answers any local process; patches/miniflare+*.patch (applied by `npm ci`) makes it refuse every
 * request without a per-process secret that only workerd is given (docs/design/self-hosting.md).
 * The same patch makes Miniflare's source Latin-1 only, which halves what V8 keeps of it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Miniflare,
  type Request as MiniflareRequest,
  Response as MiniflareResponse,
  type WorkerOptions,
} from 'miniflare';
import type { Resources } from '../core/contract/models.js';
import { SINGLETON_NAMES } from '../core/domain/object-names.js';
import { type Diagnostics, diagnosticsMiniflareOptions } from './diagnostics.js';
import { FORWARDED_PROTO_HEADER } from './front-headers.js';
import { childPids, guardAgainstOrphans } from './orphan-guard.js';

/** The RegistryDO methods the launcher calls (durable-objects/registry/registry-do.ts). */
export interface RegistryRpc {
  needsSetup(): Promise<boolean>;
  bootstrapAdmin(username: string, password: string): Promise<boolean>;
  issueSetupToken(): Promise<string | null>;
}

/** The RetentionDO methods the launcher calls (durable-objects/retention/retention-do.ts). */
export interface RetentionRpc {
  releasePreviousBootUploads(): Promise<number>;
  listCatalog(after: number, limit: number): Promise<{ channels: { channel_id: string }[]; next: number | null }>;
}

export interface ChannelRpc {
  reportToCatalog(): Promise<void>;
}

export interface WorkerRuntime {
  /** workerd's entry socket, where the front forwards to (our worker refuses requests without
   *  the front secret). */
  url: URL;
  /** A direct socket to the worker's `FrontEntrypoint` (worker/index.ts): the front sends the
   *  worker's own paths here, past Miniflare's entry worker and the assets router, with the
   *  public scheme in FORWARDED_PROTO_HEADER. Same front-secret check. */
  directUrl: URL;
  registry(): Promise<RegistryRpc>;
  retention(): Promise<RetentionRpc>;
  channel(channelId: string): Promise<ChannelRpc>;
  dispose(): Promise<void>;
}

export interface WorkerRuntimeOptions {
  /** Miniflare state (Durable Object SQLite files, R2 objects). */
  persistRoot: string;
  keyPepper: string;
  frontSecret: string;
  metrics: () => Promise<Resources>;
  /** Opt-in measuring aids (diagnostics.ts); none by default. */
  diagnostics?: Diagnostics;
  /** The worker's console output, line by line (the JSON log); by default it goes to stdio. */
  onWorkerLog?: (entry: { message: string; level: string }) => void;
  /** The names the server answers to (host-names.ts); the worker refuses other Host names. */
  allowedHosts?: readonly string[];
}

const OPTIONS_FILE = 'dist/worker/miniflare-options.json';

/** The worker's named entrypoint for the front's direct socket (worker/index.ts). */
const DIRECT_ENTRYPOINT = 'FrontEntrypoint';

/** The package root: the launcher runs from dist/node/, but look upward rather than assume. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, OPTIONS_FILE))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(`${OPTIONS_FILE} not found: run \`npm run build\` first.`);
    }
    dir = parent;
  }
}

/** A module of the bundle as the build lists it (server/derive-worker-options.mjs). */
interface ListedModule {
  type: 'ESModule' | 'Text';
  path: string;
}

function derivedWorkerOptions(root: string): WorkerOptions {
  const { modules, ...options } = JSON.parse(readFileSync(join(root, OPTIONS_FILE), 'utf8')) as Omit<
    WorkerOptions,
    'modules'
  > & { assets?: { directory: string }; modules?: ListedModule[] };
  if (options.assets) options.assets.directory = resolve(root, options.assets.directory);
  if (!Array.isArray(modules) || modules[0]?.type !== 'ESModule') {
    throw new Error(`${OPTIONS_FILE} lists no modules: run \`npm run build\` first.`);
  }
  // Listed relative to the bundle's folder.
  const dir = join(root, 'dist/worker');
  return { ...options, modules: modules.map((m) => ({ type: m.type, path: join(dir, m.path) })) };
}

/** Set by patches/miniflare+*.patch: the loopback server requires workerd's secret, and direct
 *  sockets take workerd's forwardedProtoHeader (without it, the worker would see `http:` under TLS
 *  and set session cookies without `Secure`). */
function miniflarePatched(): boolean {
  const patched = Miniflare as unknown as { loopbackSecretRequired?: unknown; directSocketForwardedProto?: unknown };
  return patched.loopbackSecretRequired === true && patched.directSocketForwardedProto === true;
}

export async function startWorkerRuntime(options: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  // Fail closed: an unpatched Miniflare (installed with --ignore-scripts, or a version bump
  // without a new patch) would expose an unauthenticated loopback port to every local process.
  if (!miniflarePatched()) {
    throw new Error(
      'Miniflare is not patched (patches/miniflare+*.patch): its loopback port would answer any local ' +
        'process. Reinstall with `npm ci` (install scripts enabled) or run `npx patch-package`.',
    );
  }
  const root = packageRoot();
  const scriptPath = join(root, 'dist/worker/index.js');
  if (!existsSync(scriptPath)) throw new Error('dist/worker/index.js not found: run `npm run build` first.');

  const metricsService = async (request: MiniflareRequest) => {
    if (request.method !== 'GET') return new MiniflareResponse(null, { status: 405 });
    return MiniflareResponse.json(await options.metrics());
  };

  const derived = derivedWorkerOptions(root);
  const aids = diagnosticsMiniflareOptions(options.diagnostics ?? { benchHello: false }, derived.compatibilityDate);
  const mf = new Miniflare({
    ...aids.shared,
    host: '127.0.0.1',
    port: 0,
    // Offline: no download of the request.cf blob.
    cf: false,
    defaultPersistRoot: options.persistRoot,
    // The front logs nothing per request, and neither may Miniflare (URLs, statuses).
    logRequests: false,
    ...(options.onWorkerLog && { handleStructuredLogs: options.onWorkerLog }),
    workers: [
      {
        name: 'switchboard',
        // Each of these is a worker isolate of its own in workerd (about 2 MB idle each) that the
        // worker never calls: it uses no Cache API (`cache: false` leaves a no-op stub in place of
        // the cache's Durable Object and its SQLite file), and it makes no outbound fetch, so
        // Miniflare's outbound wrapper that strips CF-Connecting-IP from subrequests has nothing
        // to strip. The client address the worker reads on requests is the front's
        // (front-headers.ts drops client copies of the address headers and sets its own).
        cache: false,
        stripCfConnectingIp: false,
        // `modules` is the bundle and its SQL migrations, listed at build time, so Miniflare does not
        // parse the bundle to find them on every start (server/derive-worker-options.mjs).
        ...derived,
        // Module names are paths below this root; the default (the cwd) breaks `switchboard serve`
        // started from any other directory.
        modulesRoot: dirname(scriptPath),
        bindings: {
          ...derived.bindings,
          KEY_PEPPER: options.keyPepper,
          FRONT_SECRET: options.frontSecret,
          ...(options.allowedHosts && { ALLOWED_HOSTS: options.allowedHosts.join(',') }),
          ...aids.bindings,
        },
        serviceBindings: { ...derived.serviceBindings, HOST_METRICS: metricsService },
        // The request URL the worker sees is `<proto>://<Host><path>`, as MF-Original-URL makes it
        // on the entry socket; forwardedProtoHeader comes from patches/miniflare+*.patch.
        unsafeDirectSockets: [
          { host: '127.0.0.1', port: 0, entrypoint: DIRECT_ENTRYPOINT, forwardedProtoHeader: FORWARDED_PROTO_HEADER },
        ] as WorkerOptions['unsafeDirectSockets'],
      },
      // After ours: the first worker is the one that requests matching no route reach.
      ...aids.workers,
    ],
  });
  let url: URL;
  let directUrl: URL;
  try {
    url = await mf.ready;
    directUrl = await mf.unsafeGetDirectURL('switchboard', DIRECT_ENTRYPOINT);
  } catch (error) {
    await mf.dispose().catch(() => {});
    throw error;
  }
  const guard = guardAgainstOrphans(childPids(process.pid, 'workerd'));

  return {
    url,
    directUrl,
    async registry() {
      const namespace = await mf.getDurableObjectNamespace('REGISTRY');
      return namespace.get(namespace.idFromName(SINGLETON_NAMES.registry)) as unknown as RegistryRpc;
    },
    async retention() {
      const namespace = await mf.getDurableObjectNamespace('RETENTION');
      return namespace.get(namespace.idFromName(SINGLETON_NAMES.retention)) as unknown as RetentionRpc;
    },
    async channel(channelId: string) {
      const namespace = await mf.getDurableObjectNamespace('CHANNEL');
      return namespace.get(namespace.idFromName(channelId)) as unknown as ChannelRpc;
    },
    async dispose() {
      await mf.dispose();
      await guard.disarm();
    },
  };
}
