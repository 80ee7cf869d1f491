// The floor under the upload memory figure (bench-upload.mjs): the same Miniflare and workerd with
// no Switchboard code in them, a bare worker that streams a request body of the same size into R2
// and, in the second measurement, copies the object once (a send to one target stages the file
// and copies it into the channel). Each runs on a fresh Miniflare, like the server's first upload.
// What workerd grows by here belongs to the runtime and to Miniflare's R2 object, whose blob
// writes pass every 4 KiB chunk through a JavaScript TransformStream (DigestingStream in
// node_modules/miniflare/dist/src/workers/r2/bucket.worker.js), not to Switchboard.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { processTree, rssBytes, sleep } from './bench-kit.mjs';

const round = (n) => Number(n.toFixed(1));

const SCRIPT = `export default {
  async fetch(request, env) {
    const { readable, writable } = new FixedLengthStream(Number(request.headers.get('content-length')));
    const [, staged] = await Promise.all([request.body.pipeTo(writable), env.FILES.put('staged', readable)]);
    if (new URL(request.url).searchParams.has('copy')) {
      const source = await env.FILES.get('staged');
      await env.FILES.put('copy', source.body);
    }
    return Response.json({ size: staged.size });
  },
};`;

/** workerd's resident memory rise (MB) for a plain R2 put of `bytes`, and for a put plus one copy. */
export async function uploadFloor(bytes) {
  return { put: await oneFloor(bytes, false), putAndCopy: await oneFloor(bytes, true) };
}

async function oneFloor(bytes, copy) {
  const workerdPids = () =>
    new Set(
      processTree(process.pid)
        .filter((p) => p.comm === 'workerd')
        .map((p) => p.pid),
    );
  const before = workerdPids();
  const dir = mkdtempSync(join(os.tmpdir(), 'switchboard-upload-floor-'));
  const mf = new Miniflare({
    modules: true,
    script: SCRIPT,
    compatibilityDate: '2026-04-26',
    r2Buckets: ['FILES'],
    r2Persist: join(dir, 'r2'),
  });
  try {
    const url = await mf.ready;
    const pid = [...workerdPids()].find((p) => !before.has(p));
    if (pid === undefined) throw new Error('the floor worker’s workerd process was not found');
    let baseline = 0;
    for (let i = 0; i < 10; i++) {
      baseline = Math.max(baseline, rssBytes(pid));
      await sleep(20);
    }
    let peak = baseline;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, rssBytes(pid));
        await sleep(10);
      }
    })();
    let answer;
    try {
      answer = await post(new URL(copy ? '/?copy' : '/', url), bytes);
    } finally {
      sampling = false;
      await sampler;
    }
    const ok = answer.status === 200 && JSON.parse(answer.text).size === bytes;
    return {
      bytes,
      ok,
      baselineMb: round(baseline / 1e6),
      peakMb: round(peak / 1e6),
      riseMb: round((peak - baseline) / 1e6),
    };
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** POSTs `bytes` in 256 KiB writes, as the bench's upload does, with backpressure. */
function post(url, bytes) {
  const chunk = Buffer.alloc(256 * 1024, 7);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-length': bytes } }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}
