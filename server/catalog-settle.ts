/**
 * At start, before anything is served: every channel brings its entry in the retention catalog up
 * to date. A channel reports its message and file counts to the catalog (the overview's totals)
 * by alarm after its sends, so a crash in between leaves the catalog behind until that channel
 * is next written to or its alarm fires; asking each channel once here makes the totals exact
 * from the first request. A channel already up to date answers without writing
 * (durable-objects/channel/catalog-report.ts), so the cost is one object start per channel.
 */
import type { WorkerRuntime } from './worker-runtime.js';

/** Catalog entries read per page, and channels asked at the same time. */
const PAGE = 500;
const CONCURRENCY = 8;

export async function settleCatalog(runtime: Pick<WorkerRuntime, 'retention' | 'channel'>): Promise<number> {
  const retention = await runtime.retention();
  let after = 0;
  let asked = 0;
  for (;;) {
    const { channels, next } = await retention.listCatalog(after, PAGE);
    let i = 0;
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, channels.length) }, async () => {
        while (i < channels.length) {
          const entry = channels[i++] as { channel_id: string };
          await (await runtime.channel(entry.channel_id)).reportToCatalog();
          asked++;
        }
      }),
    );
    if (next === null) return asked;
    after = next;
  }
}
