// Timing of refused API keys (issue 10, item 2): a key naming an unknown agent must cost the same
// as a wrong secret for an existing agent, so the answer time tells nothing about which agent IDs
// exist (before the fix: 13 ms for a new unknown ID, which created its Durable Object, vs 5 ms for
// a wrong key). Starts the real self-hosted server (as `npm start` does) with a temporary data
// directory, then sends the kinds of key below one request at a time, interleaved round-robin so
// that load from elsewhere on the machine hits every kind alike, and reports the latency
// distribution of each. The result replaces the "Refused API keys" section of docs/benchmarks.md.
// A benchmark, not a test: timings depend on the machine. Build first (`npm run build`). Usage:
//   npm run bench:auth-timing [-- --rounds 2000]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { adminCookie, client, machine, startServer, writeSection } from './bench-kit.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '200' },
    out: { type: 'string', default: 'docs/benchmarks.md' },
  },
});
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const SECTION = '## Refused API keys';

const random = (bytes) => randomBytes(bytes).toString('base64url');

const server = await startServer('switchboard-bench-auth-');
const call = client(server.api);
let rows;
try {
  const strict = client(server.api, { strict: true });
  const cookie = await adminCookie(strict);
  const host = (await strict('POST', '/admin/hosts', { cookie, body: { name: 'bench', addresses: ['127.0.0.1'] } }))
    .body.host;
  const created = await strict('POST', '/admin/agents', { cookie, body: { name: 'timed', host_id: host.host_id } });
  const agentId = created.body.agent.agent_id;
  const validKey = created.body.api_key;

  const kinds = [
    ['Unknown agent ID (a new one each time)', () => `sbk_agt_${random(16)}.${random(32)}`, 401],
    ['Wrong secret for an existing agent', () => `sbk_${agentId}.${random(32)}`, 401],
    ['Malformed key', () => `not-a-key-${random(8)}`, 401],
    ['Valid key (for reference)', () => validKey, 200],
  ];
  const samples = kinds.map(() => []);
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const [k, [, makeKey, expected]] of kinds.entries()) {
      const key = makeKey();
      const started = performance.now();
      const res = await call('GET', '/me', { key });
      const ms = performance.now() - started;
      if (res.status !== expected) throw new Error(`${kinds[k][0]}: expected ${expected}, got ${res.status}`);
      if (round >= WARMUP) samples[k].push(ms);
    }
  }
  const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  rows = kinds.map(([name], k) => {
    const sorted = [...samples[k]].sort((x, y) => x - y);
    const mean = sorted.reduce((n, x) => n + x, 0) / sorted.length;
    return { name, p50: pct(sorted, 50), p90: pct(sorted, 90), p99: pct(sorted, 99), mean };
  });
} finally {
  await server.stop();
}

const f = (ms) => ms.toFixed(2);
const table = [
  '| Key | p50 ms | p90 ms | p99 ms | mean ms |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.name} | ${f(r.p50)} | ${f(r.p90)} | ${f(r.p99)} | ${f(r.mean)} |`),
];
const [unknown, wrong] = rows;
const section = `${SECTION}

\`npm run bench:auth-timing\` (${ROUNDS} rounds after ${WARMUP} warm-up rounds, one request at a time, the
kinds interleaved; ${machine()}; ${new Date().toISOString().slice(0, 10)}). \`GET /me\` through the
launcher's front, client-side latency over loopback. The kinds are interleaved, so load from elsewhere
on the machine hits each alike: compare the rows, not the absolute values.

${table.join('\n')}

Unknown agent vs wrong secret: p50 differs by ${f(Math.abs(unknown.p50 - wrong.p50))} ms, mean by ${f(Math.abs(unknown.mean - wrong.mean))} ms.
Both are refused by the worker alone (the key's tag, core/lib/api-key.ts), with no Durable Object
call; before the fix (issue 10's measurement) an unknown ID cost ~13 ms (it created that agent's Durable Object) and a wrong
secret ~5 ms.
A wrong secret naming an existing agent is also logged for the console's agent page, after the answer
(worker/lib/refused-keys.ts: the registry is asked in the background, sampled per isolate); these rows include it.
`;
writeSection(values.out, SECTION, section);
console.log(section);
