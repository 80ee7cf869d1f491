// Start-up of the commands agents run, each side by side with a bare Node process doing the same
// work (so that both see the same machine load), in fresh processes, alternating, warm-up first:
//
//   - `switchboard mcp`: from spawn to the answer of `tools/list` (initialize, the initialized
//     notification, tools/list on stdin at once, as clients send them), against a bare Node
//     process that answers the same two requests (with an empty tool list);
//   - `switchboard --version`: spawn to exit, against a bare Node process printing a version;
//   - a cold `switchboard inbox` against the real server: spawn to exit, against a bare Node
//     process making the same GET /inbox with node:http and printing the answer.
//
// The target: each median at most 2 × the bare median + 100 ms.
// `startupRun` is the phase of `npm run bench` (scripts/bench.mjs); run alone, this script starts
// its own server: node scripts/bench-startup.mjs [--runs 20] [--bin other/switchboard.mjs ...]
// (several --bin compare builds, e.g. an older one, in the same rounds).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const BARE_MCP = `
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) !== -1) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id === undefined) continue;
    const result = message.method === 'initialize'
      ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '0' } }
      : { tools: [] };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }) + '\\n');
  }
});`;

const BARE_VERSION = "process.stdout.write('0.0.0\\n')";

const BARE_INBOX = `
const { request } = require('node:http');
const req = request(process.env.SWITCHBOARD_URL + '/api/v1/inbox', { headers: { authorization: 'Bearer ' + process.env.SWITCHBOARD_API_KEY } }, (res) => {
  let text = '';
  res.on('data', (chunk) => (text += chunk));
  res.on('end', () => { process.stdout.write(text + '\\n'); process.exitCode = res.statusCode === 200 ? 0 : 3; });
});
req.end();`;

const MCP_INPUT = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
]
  .map((m) => `${JSON.stringify(m)}\n`)
  .join('');

/** Milliseconds from spawn to exit (or, with `untilListed`, to the tools/list answer). */
function timeOnce(args, env, { input, untilListed = false } = {}) {
  return new Promise((done, fail) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let finished = false;
    const finish = (error) => {
      if (finished) return;
      finished = true;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (error) fail(error);
      else done(ms);
    };
    child.stdout.on('data', (chunk) => {
      out += chunk;
      // Whatever the member order: the SDK writes `result` first, the quick path `id` first.
      if (untilListed && out.split('\n').some((line) => /^\{.*"id":2[,}]/.test(line) && line.includes('"tools":['))) {
        finish();
        child.kill();
      }
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      if (untilListed) finish(new Error(`${args.join(' ')} exited (${code}) before listing its tools: ${err}`));
      else if (code !== 0) finish(new Error(`${args.join(' ')} exited with ${code}: ${err}`));
      else finish();
    });
    child.on('error', finish);
    if (input) child.stdin.write(input);
    else child.stdin.end();
  });
}

const stats = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return { median: Math.round(sorted[Math.floor(sorted.length / 2)]), min: Math.round(sorted[0]), runs: list.length };
};

/**
 * Measures every command of every build in `bins` (name -> path of switchboard.mjs) and its bare
 * counterpart, round-robin. Returns per command: the bare figures, each build's figures, the target.
 */
export async function startupRun({ quick = false, log = () => {}, url, key, bins, runs, warmup } = {}) {
  const builds = bins ?? { current: 'dist/node/switchboard.mjs' };
  const rounds = runs ?? (quick ? 3 : 20);
  const warm = warmup ?? (quick ? 1 : 3);
  const env = {
    ...process.env,
    SWITCHBOARD_URL: url,
    SWITCHBOARD_API_KEY: key,
    // No profile of the user's: the variables are the whole configuration.
    SWITCHBOARD_CONFIG: '/nonexistent/switchboard-bench/config.json',
  };
  for (const name of Object.keys(env)) if (name.startsWith('SWITCHBOARD_PROFILE')) delete env[name];
  const commands = {
    'mcp: spawn to tools/list answer': {
      bare: [['-e', BARE_MCP], { input: MCP_INPUT, untilListed: true }],
      run: (bin) => [[bin, 'mcp'], { input: MCP_INPUT, untilListed: true }],
    },
    '--version': { bare: [['-e', BARE_VERSION], {}], run: (bin) => [[bin, '--version'], {}] },
    'inbox (cold, real server)': { bare: [['-e', BARE_INBOX], {}], run: (bin) => [[bin, 'inbox'], {}] },
  };
  const results = {};
  for (const [command, spec] of Object.entries(commands)) {
    const times = { bare: [], ...Object.fromEntries(Object.keys(builds).map((b) => [b, []])) };
    for (let i = 0; i < warm + rounds; i++) {
      const bareMs = await timeOnce(spec.bare[0], env, spec.bare[1]);
      if (i >= warm) times.bare.push(bareMs);
      for (const [build, bin] of Object.entries(builds)) {
        const [args, options] = spec.run(resolve(bin));
        const ms = await timeOnce(args, env, options);
        if (i >= warm) times[build].push(ms);
      }
    }
    const bare = stats(times.bare);
    const target = 2 * bare.median + 100;
    const row = { bare, target, builds: {} };
    for (const build of Object.keys(builds)) {
      const s = stats(times[build]);
      row.builds[build] = { ...s, ratio: Math.round((100 * s.median) / bare.median) / 100, holds: s.median <= target };
    }
    results[command] = row;
    log(
      `start-up ${command}: bare ${bare.median} ms, ` +
        Object.entries(row.builds)
          .map(([b, s]) => `${b} ${s.median} ms (${s.ratio}×, target ${target} ms: ${s.holds ? 'holds' : 'misses'})`)
          .join(', '),
    );
  }
  return { rounds, warmup: warm, commands: results };
}

/** The table of docs/benchmarks.md. */
export function startupTable(run) {
  const builds = Object.keys(Object.values(run.commands)[0]?.builds ?? {});
  const lines = [
    `| Command | Bare Node | ${builds.map((b) => `${b} (median, min)`).join(' | ')} | Target (2 × bare + 100 ms) |`,
    `| --- | ---: | ${builds.map(() => '---:').join(' | ')} | ---: |`,
  ];
  for (const [command, row] of Object.entries(run.commands)) {
    const cells = builds.map((b) => {
      const s = row.builds[b];
      return `${s.median} ms, ${s.min} ms (${s.ratio}×) ${s.holds ? '✓' : '✗'}`;
    });
    lines.push(`| ${command} | ${row.bare.median} ms | ${cells.join(' | ')} | ${row.target} ms |`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '3' },
      bin: { type: 'string', multiple: true },
      quick: { type: 'boolean', default: false },
    },
  });
  const { adminCookie, client, machine, startServer } = await import('./bench-kit.mjs');
  const server = await startServer('switchboard-bench-startup-');
  try {
    const call = client(server.api, { strict: true });
    const cookie = await adminCookie(call);
    const host = (await call('POST', '/admin/hosts', { cookie, body: { name: 'bench', addresses: ['127.0.0.1'] } }))
      .body.host;
    const agent = (
      await call('POST', '/admin/agents', { cookie, body: { name: 'bench-start', host_id: host.host_id } })
    ).body;
    const bins = values.bin
      ? Object.fromEntries(values.bin.map((bin, i) => [i === 0 && values.bin.length > 1 ? `${bin}` : bin, bin]))
      : undefined;
    const run = await startupRun({
      quick: values.quick,
      log: console.log,
      url: server.base,
      key: agent.api_key,
      bins,
      runs: Number(values.runs),
      warmup: Number(values.warmup),
    });
    console.log(`\n${machine()}\n\n${startupTable(run)}`);
  } finally {
    await server.stop();
  }
}
