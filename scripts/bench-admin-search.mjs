// Benchmark of the administrators' content search over many channels (issue 7: "a content search
// over 1,000 channels answers in a few seconds, paged"). Starts the real self-hosted server (the
// launcher, as `npm start` does) with a temporary data directory, creates enough agents for
// --channels private channels (one per pair), fills each with --messages messages, then times
// GET /admin/channels with a content search, page by page, until the catalog is exhausted.
// The result replaces the "Admin content search" section of docs/benchmarks.md (other sections are
// kept). Build first (`npm run build`). Usage:
//   npm run bench:admin-search [-- --channels 1000 --messages 20 --concurrency 16]
import { parseArgs } from 'node:util';
import { adminCookie, client, machine, startServer, writeSection } from './bench-kit.mjs';

const { values } = parseArgs({
  options: {
    channels: { type: 'string', default: '1000' },
    messages: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '16' },
    out: { type: 'string', default: 'docs/benchmarks.md' },
  },
});
const CHANNELS = Number(values.channels);
const MESSAGES = Number(values.messages);
const CONCURRENCY = Number(values.concurrency);
/** Planted in every 100th channel, so a search has a few matches spread over the whole catalog. */
const NEEDLE = 'Needle-7f3a';
const SECTION = '## Admin content search';

// Fewest agents whose pairs give CHANNELS private channels: n(n-1)/2 >= CHANNELS.
let agentCount = 2;
while ((agentCount * (agentCount - 1)) / 2 < CHANNELS) agentCount++;

const server = await startServer('switchboard-bench-search-');
const call = client(server.api, { strict: true });

async function send(key, to, body) {
  return call('POST', '/messages/direct', { key, body: { to_agent_ids: [to], body } });
}

/** Runs `tasks` with at most CONCURRENCY in flight. */
async function pool(tasks) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

/** Pages through GET /admin/channels with `query` to the end; times each page and the whole. */
async function timedScan(cookie, query) {
  const pages = [];
  let cursor = null;
  let matches = 0;
  let scanned = 0;
  const started = performance.now();
  do {
    const params = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const t = performance.now();
    const { body } = await call('GET', `/admin/channels?${params}`, { cookie });
    pages.push(performance.now() - t);
    matches += body.channels.length;
    scanned += body.scanned;
    cursor = body.next_cursor;
  } while (cursor);
  return { total: performance.now() - started, pages, matches, scanned };
}

const rows = [];
let setupSeconds = 0;
try {
  const setupStarted = performance.now();
  const cookie = await adminCookie(call);
  const host = (await call('POST', '/admin/hosts', { cookie, body: { name: 'bench', addresses: ['127.0.0.1'] } })).body
    .host;
  const agents = [];
  await pool(
    Array.from({ length: agentCount }, (_, i) => async () => {
      const created = await call('POST', '/admin/agents', { cookie, body: { name: `s-${i}`, host_id: host.host_id } });
      agents[i] = { id: created.body.agent.agent_id, key: created.body.api_key };
    }),
  );
  const pairs = [];
  for (let i = 0; i < agents.length && pairs.length < CHANNELS; i++) {
    for (let j = i + 1; j < agents.length && pairs.length < CHANNELS; j++) pairs.push([agents[i], agents[j]]);
  }
  // One task per channel sends its messages in order (a channel is one Durable Object).
  await pool(
    pairs.map(([a, b], c) => async () => {
      for (let m = 0; m < MESSAGES; m++) {
        const planted = c % 100 === 0 && m === Math.floor(MESSAGES / 2);
        const body = planted
          ? `status of job ${c}/${m}: ${NEEDLE} found in the logs`
          : `status of job ${c}/${m}: all green, nothing to report, Проверка завершена`;
        await send((m % 2 ? b : a).key, (m % 2 ? a : b).id, body);
      }
    }),
  );
  setupSeconds = (performance.now() - setupStarted) / 1000;
  console.log(`set up ${pairs.length} channels × ${MESSAGES} messages in ${setupSeconds.toFixed(0)} s`);

  const cases = [
    ['List, no search (first page only)', { limit: '50' }, true],
    ['Search, rare text (1 % of channels)', { q: NEEDLE.toLowerCase(), limit: '50' }],
    ['Search, no match anywhere', { q: 'absent-text-0000', limit: '50' }],
    ['Search, Cyrillic, every channel (JS check)', { q: 'ПРОВЕРКА', limit: '200' }],
    ['Search with a participant filter', { q: NEEDLE, participant: agents[0].id, limit: '50' }],
  ];
  for (const [name, query, firstOnly] of cases) {
    let result;
    if (firstOnly) {
      const t = performance.now();
      const { body } = await call('GET', `/admin/channels?${new URLSearchParams(query)}`, { cookie });
      const ms = performance.now() - t;
      result = { total: ms, pages: [ms], matches: body.channels.length, scanned: body.scanned };
    } else {
      result = await timedScan(cookie, query);
    }
    const sorted = [...result.pages].sort((x, y) => x - y);
    const row = {
      name,
      pages: result.pages.length,
      scanned: result.scanned,
      matches: result.matches,
      total: result.total,
      slowest: sorted.at(-1),
    };
    rows.push(row);
    console.log(
      `${name.padEnd(44)} pages ${row.pages}  scanned ${row.scanned}  matches ${row.matches}  total ${row.total.toFixed(0)} ms  slowest page ${row.slowest.toFixed(0)} ms`,
    );
  }
} finally {
  await server.stop();
}

const section = `${SECTION}

Generated by \`npm run bench:admin-search\` (scripts/bench-admin-search.mjs) on ${new Date().toISOString().slice(0, 10)}:
the real self-hosted server, ${CHANNELS} private channels (${agentCount} agents, one channel per pair) with
${MESSAGES} messages each (set up in ${setupSeconds.toFixed(0)} s), searched through \`GET /admin/channels\` page by page
to the end of the catalog. A page examines at most 500 catalog entries, 16 channels at a time. Machine:
${machine()}; client and server share the machine. The first
search over all channels is the slowest: it wakes every channel's Durable Object from idle.

| Query | Pages | Channels examined | Matches | Total ms | Slowest page ms |
|---|---|---|---|---|---|
${rows.map((r) => `| ${r.name} | ${r.pages} | ${r.scanned} | ${r.matches} | ${r.total.toFixed(0)} | ${r.slowest.toFixed(0)} |`).join('\n')}
`;

writeSection(values.out, SECTION, section);
console.log(`wrote the "${SECTION.slice(3)}" section of ${values.out}`);
