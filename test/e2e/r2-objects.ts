/**
 * What the server's R2 bucket holds, read with Miniflare's own API from the data directory of a
 * stopped server (Miniflare keeps R2 under <data>/state/r2). No test route in the product: the
 * objects are counted the way an operator could, from outside.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';

export interface StoredObject {
  key: string;
  size: number;
  sha256: string;
}

export async function storedObjects(dataDir: string): Promise<StoredObject[]> {
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } }',
    cf: false,
    r2Buckets: { FILES: 'switchboard-files' },
    r2Persist: join(dataDir, 'state', 'r2'),
  });
  try {
    const bucket = await mf.getR2Bucket('FILES');
    const out: StoredObject[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ cursor, limit: 1000 });
      for (const object of page.objects) {
        const body = await bucket.get(object.key);
        const bytes = Buffer.from(await body!.arrayBuffer());
        out.push({ key: object.key, size: object.size, sha256: createHash('sha256').update(bytes).digest('hex') });
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return out.sort((a, b) => a.key.localeCompare(b.key));
  } finally {
    await mf.dispose();
  }
}
