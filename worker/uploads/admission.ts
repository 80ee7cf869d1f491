/**
 * Upload admission from the worker's side: the retention object admits one upload (concurrency,
 * temporary bytes, the uploader's share of both, cleanup health) under a lease, which this request
 * renews while it lives and releases once. A multipart send is admitted when its file part starts
 * (worker/body/upload.ts); a remote MCP call large enough to carry a file is admitted before its
 * body is read (worker/mcp.ts), and the upload that call makes adopts that lease.
 */
import type { Context } from 'hono';
import type { Limits } from '../../core/contract/models.js';
import { retention } from '../../core/stubs.js';
import type { AppEnv } from '../handlers/types.js';

/** The lease of one admitted file: renewed on a timer while the request lives, released once. */
export class Admission {
  private timer: ReturnType<typeof setInterval> | null = null;
  private released: Promise<void> | null = null;
  private settle: () => void = () => {};
  /** Resolves once the lease was released (or its release failed and the sweep takes over). */
  readonly settled = new Promise<void>((resolve) => {
    this.settle = resolve;
  });
  lost = false;

  constructor(
    private readonly env: AppEnv['Bindings'],
    readonly leaseId: string,
    readonly key: string,
    leaseMs: number,
  ) {
    this.timer = setInterval(
      () => {
        retention(env)
          .renewUpload(leaseId)
          .then((alive) => {
            if (!alive) this.lost = true;
          })
          .catch(() => {
            // A missed renewal is retried on the next tick; the lease outlives two of them.
          });
      },
      Math.floor(leaseMs / 3),
    );
  }

  release(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.released ??= retention(this.env)
      .releaseUpload(this.leaseId)
      .catch(() => {
        // The lease expires by itself and the retention object sweeps the staged object.
      })
      .finally(() => this.settle());
    return this.released;
  }
}

/**
 * Admits one upload of at most `reserveBytes` for `agentId`, or throws the retention object's
 * refusal (upload_admission_denied, cleanup_unavailable).
 */
export async function admitUpload(
  c: Context<AppEnv>,
  agentId: string,
  reserveBytes: number,
  limits: Pick<Limits, 'max_concurrent_uploads' | 'max_upload_temp_bytes'>,
): Promise<Admission> {
  const lease = await retention(c.env).acquireUpload({
    agentId,
    reserveBytes,
    maxConcurrent: limits.max_concurrent_uploads,
    maxTempBytes: limits.max_upload_temp_bytes,
  });
  const admission = new Admission(c.env, lease.leaseId, lease.key, lease.leaseMs);
  // Should the runtime cancel this request mid-upload (client gone), the release may still finish.
  try {
    c.executionCtx.waitUntil(admission.settled);
  } catch {
    // No execution context outside a request: nothing to extend.
  }
  return admission;
}
