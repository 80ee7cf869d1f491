// The memory phase of `npm run bench`: the resident memory of the server's processes while one
// maximal file is uploaded, sampled per process (launcher = the Node front + Miniflare's Node side,
// workerd, the orphan guard) so that a rise can be pinned on one of them, not only on the sum.
import { Readable } from 'node:stream';
import { processTree, rssBytes, sleep } from './bench-kit.mjs';

const round = (n) => Number(n.toFixed(1));

/**
 * Sends a `bytes`-long file twice from agents[0] to agents[1] (streamed from a generator, so the client
 * never holds it) while sampling every 10 ms. `api(method, path, options)` is the bench's client,
 * taking a `raw` body stream. Answers the sum's and each process's baseline, peak and rise (MB)
 * for the first upload, and the same for the second under `again`.
 */
export async function uploadMemory(api, agents, launcherPid, bytes) {
  // The first large upload on a server grows workerd's heaps and allocator caches, which stay and
  // are reused; a second one shows what an upload costs on a server that has had one.
  const first = await oneUpload(api, agents, launcherPid, bytes);
  await sleep(1000);
  return { ...first, again: await oneUpload(api, agents, launcherPid, bytes) };
}

async function oneUpload(api, agents, launcherPid, bytes) {
  const tree = processTree(launcherPid);
  const sample = () => tree.map((p) => rssBytes(p.pid));
  const baseline = tree.map(() => 0);
  for (let i = 0; i < 10; i++) {
    for (const [j, rss] of sample().entries()) baseline[j] = Math.max(baseline[j], rss);
    await sleep(20);
  }
  const peak = [...baseline];
  let sumPeak = baseline.reduce((a, b) => a + b, 0);
  const sumBase = sumPeak;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = sample();
      for (const [j, rss] of now.entries()) peak[j] = Math.max(peak[j], rss);
      sumPeak = Math.max(
        sumPeak,
        now.reduce((a, b) => a + b, 0),
      );
      await sleep(10);
    }
  })();
  const [from, to] = agents;
  const boundary = `bench-${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n` +
      JSON.stringify({ to_agent_ids: [to.id], body: `upload ${Date.now()}` }) +
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(256 * 1024, 7);
  let sent = 0;
  // Streamed from a generator: neither side may need the whole file in memory.
  const body = Readable.from(
    (function* () {
      yield head;
      while (sent < bytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += piece.length;
        yield piece;
      }
      yield tail;
    })(),
  );
  const started = performance.now();
  let res;
  try {
    res = await api('POST', '/messages/direct', {
      key: from.key,
      raw: body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
  } finally {
    sampling = false;
    await sampler;
  }
  const ms = performance.now() - started;
  const ok = res.status === 200 && res.body.results[0].status === 'sent';
  return {
    bytes,
    ok,
    status: res.status,
    ms: Math.round(ms),
    baselineMb: round(sumBase / 1e6),
    peakMb: round(sumPeak / 1e6),
    riseMb: round((sumPeak - sumBase) / 1e6),
    processes: tree.map((p, j) => ({
      pid: p.pid,
      comm: p.comm,
      baselineMb: round(baseline[j] / 1e6),
      peakMb: round(peak[j] / 1e6),
      riseMb: round((peak[j] - baseline[j]) / 1e6),
    })),
  };
}
