/**
 * The real clients against the real server (REQ-50): each client from test/clients/package.json
 * runs headless with its own HOME, talks to the scripted model through its own base-URL setting,
 * and reaches Switchboard over each transport it supports. What each session did is checked on
 * the server; the compatibility matrix and the generated figures in docs/clients.md must match
 * what this run saw (SWITCHBOARD_CLIENTS_WRITE=1 rewrites them).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationList } from '../../core/contract/index.js';
import { cliEnv, tempConfig } from '../e2e/cli-process.js';
import { adminLogin, api, CLI, createAgent, createHost, type Server, startServer, tempDir } from '../e2e/harness.js';
import { baseEnv, bridge, CLIENTS, type ClientName, LABELS, ROOT, type Session, version } from './clients.js';
import { type ModelServer, NOTICE_MARK, type Recorded, startModelServer } from './model-server.js';
import { cliRoundTrip, compete, idle, probe, roundTrip, type Transport } from './scenario.js';

const OUR_TOOLS = operationList.flatMap((op) => (op.mcp ? [op.mcp.tool] : []));
const OS = `${platform()}-${arch()}`;
const DOC = join(ROOT, 'docs/clients.md');

let server: Server;
let model: ModelServer;
let cookie: string;
let hostId: string;
let foreignHostId: string;

const TRANSPORTS: Record<ClientName, Transport[]> = {
  claude: ['stdio', 'http', 'bridge'],
  codex: ['stdio', 'http', 'bridge'],
  gemini: ['stdio', 'http', 'bridge'],
  qwen: ['stdio', 'http', 'bridge'],
  pi: ['cli'],
};
const NAMES = Object.keys(TRANSPORTS) as ClientName[];

/** Refused requests: every URL and bridge set-up (where an HTTP 401/403 meets the client's own
 *  handling), and stdio once (there the error is a tool result like any other). Fewer sessions
 *  keep the suite inside its time budget. */
function errorCell(client: ClientName, transport: Transport, wrong: 'key' | 'address'): boolean {
  if (client === 'claude') return true;
  return wrong === 'key' ? transport !== 'stdio' : transport === 'http';
}

type Mark = '✓' | '✗' | '–';
interface Row {
  listed: string;
  shown: string;
  instructions: Mark;
  claim: Mark;
  fileIn: Mark;
  ack: Mark;
  send: Mark;
  fileOut: Mark;
  wrongKey: string;
  wrongAddress: string;
}
const rows = new Map<string, Partial<Row>>();
const row = (client: ClientName, transport: Transport) => {
  const id = `${client}/${transport}`;
  if (!rows.has(id)) rows.set(id, {});
  return rows.get(id) as Partial<Row>;
};
const extra = new Map<string, Record<string, Mark>>();

/** A session that has not ended by then is killed (and its cells show what it did until then). */
const SESSION_LIMIT_MS = 150_000;

interface Run {
  code: number | null;
  output: string;
  requests: Recorded[];
  ms: number;
}

async function agent(host = hostId) {
  return createAgent(server, cookie, host, `c-${randomUUID().slice(0, 8)}`);
}

function session(transport: Transport, agentKey: string, prompt: string, home?: string): Session {
  const root = home ?? tempDir('switchboard-client-');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  mkdirSync(join(root, 'tmp'), { recursive: true });
  return {
    home: root,
    work,
    modelUrl: model.url,
    modelKey: `model-${randomUUID()}`,
    serverUrl: server.url,
    agentKey,
    transport,
    prompt,
  };
}

function run(client: ClientName, s: Session, script: Parameters<ModelServer['script']>[1]): Promise<Run> {
  model.script(s.modelKey, script);
  const { command, args, env } = CLIENTS[client](s);
  // Its own process group, so that what it started (switchboard mcp, mcp-remote) ends with it:
  // a leftover child holding the pipes would keep the session open.
  const child = spawn(command, args, { cwd: s.work, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killGroup = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  let output = '';
  const started = Date.now();
  child.stdout.setEncoding('utf8').on('data', (t: string) => (output += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (output += t));
  let exitCode: number | null = null;
  return new Promise((done) => {
    const timer = setTimeout(killGroup, SESSION_LIMIT_MS);
    child.on('exit', (code) => {
      exitCode = code;
      killGroup();
    });
    child.on('close', () => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      const requests = model.requests.filter((r) => r.key === s.modelKey);
      if (process.env.SWITCHBOARD_CLIENTS_DEBUG) {
        console.log(`${client}/${s.transport}: exit ${exitCode} after ${ms} ms`);
        for (const r of requests.filter((q) => !q.side)) {
          const last = r.exchanges.at(-1);
          console.log(
            `  ${r.tools.length} tools; ${r.exchanges.length} results; last ${last?.tool}: ${last?.result.slice(0, 300)}`,
          );
        }
      }
      done({ code: exitCode, output, requests, ms });
    });
  });
}

const mark = (ok: boolean): Mark => (ok ? '✓' : '✗');

/** What the clients print instead of our error, when they do not pass it on (matched in their output). */
const CLIENT_TEXTS = [/Auth required/, /MCP issues detected/, /connection closed: initialize response/];

/**
 * A refused request, as the person and the model meet it: ✓ when the client's output carries our
 * error code; otherwise what it printed instead (or that it printed nothing), and whether the
 * model still had our tools (a URL client that fails `initialize` starts without them).
 */
function refusalShown(result: Run, code: string): string {
  if (result.output.includes(code)) return '✓';
  const tools = result.requests.some((q) =>
    Object.keys(q.toolSizes).some((name) => OUR_TOOLS.some((t) => name.endsWith(t) && name !== t)),
  );
  const instead = CLIENT_TEXTS.map((re) => re.exec(result.output)?.[0]).find(Boolean);
  return `✗ ${instead ? `“${instead}”` : 'nothing shown'}${tools ? '' : ', no tools'}`;
}

/** Our tools as the client showed them to the model: how many, and their size in characters. */
function listing(requests: Recorded[]): { listed: string; shown: string } {
  const main = requests.filter((r) => !r.side);
  // Prefixed names only: Qwen Code and Gemini CLI have built-in tools of the same bare names.
  const ours = (r: Recorded) =>
    Object.keys(r.toolSizes).filter((name) => OUR_TOOLS.some((t) => name !== t && name.endsWith(t)));
  const first = main[0];
  const best = main.reduce<Recorded | undefined>((a, r) => (!a || ours(r).length > ours(a).length ? r : a), undefined);
  if (!first || !best || ours(best).length === 0) return { listed: '✗ none', shown: '–' };
  const count = ours(best).length;
  const chars = ours(best).reduce((sum, name) => sum + (best.toolSizes[name] ?? 0), 0);
  const deferred = ours(first).length === 0;
  return {
    listed: `✓ ${count}${deferred ? ' (deferred, via tool search)' : ''}`,
    shown: chars.toLocaleString('en-US'),
  };
}

/** The peer's message with a file, as the CLI sends it (multipart: metadata + file). */
async function sendWithFile(fromKey: string, toId: string, body: string, content: string): Promise<void> {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [toId], body }));
  form.append('file', new Blob([content], { type: 'text/plain' }), 'incoming.txt');
  const sent = await fetch(`${server.url}/api/v1/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fromKey}` },
    body: form,
  });
  if (!sent.ok) throw new Error(`peer send failed: ${sent.status} ${await sent.text()}`);
}

const inbox = async (key: string) => (await api(server, 'GET', '/inbox', { key })).body;

beforeAll(async () => {
  [server, model] = await Promise.all([startServer({ readyTimeoutMs: 90_000 }), startModelServer()]);
  cookie = await adminLogin(server);
  hostId = (await createHost(server, cookie, ['127.0.0.1', '::1'])).host_id;
  foreignHostId = (await createHost(server, cookie, ['192.0.2.10'])).host_id;
}, 120_000);
afterAll(async () => {
  await model?.close();
  await server?.stop();
});

const PROMPT = 'Check Switchboard and handle what is waiting.';

describe.concurrent('every client over every transport', () => {
  for (const client of NAMES) {
    for (const transport of TRANSPORTS[client]) {
      it(`${client} over ${transport}: inbox, claim, file in, ACK, send with a file`, async () => {
        const [me, peer] = await Promise.all([agent(), agent()]);
        const incoming = `incoming for ${client}/${transport} ${randomUUID()}\n`;
        const outgoing = { filename: 'outgoing.txt', content: `outgoing from ${client}/${transport} ${randomUUID()}` };
        await sendWithFile(peer.key, me.agent.agent_id, 'a file for you', incoming);
        const s = session(transport, me.key, PROMPT);
        writeFileSync(join(s.work, outgoing.filename), outgoing.content);
        const plan = {
          peerId: peer.agent.agent_id,
          outgoing,
          receivedPath: 'received.txt',
          replyBody: `reply from ${client}/${transport}`,
        };
        const script =
          transport === 'cli' ? cliRoundTrip(plan) : roundTrip({ ...plan, transport: transport as 'stdio' });
        const result = await run(client, s, script);

        const r = row(client, transport);
        Object.assign(r, transport === 'cli' ? { listed: 'CLI via skill', shown: '–' } : listing(result.requests));
        r.instructions =
          transport === 'cli'
            ? mark(
                result.requests.some((q) => q.raw.includes('name: switchboard') || q.raw.includes('<name>switchboard')),
              )
            : mark(result.requests.some((q) => q.instructions));
        const results = result.requests.flatMap((q) => q.exchanges.map((e) => e.result));
        r.claim = mark(results.some((text) => text.includes('a file for you') && text.includes('claim_token')));
        const b64 = Buffer.from(incoming).toString('base64');
        const receivedFile = join(s.work, 'received.txt');
        r.fileIn = mark(
          (existsSync(receivedFile) && readFileSync(receivedFile, 'utf8') === incoming) ||
            results.some((text) => text.includes(b64)),
        );
        const mine = await inbox(me.key);
        r.ack = mark(mine.unread === 0 && r.claim === '✓');
        const claimed = await api(server, 'POST', '/inbox/claim', { key: peer.key, body: { limit: 10 } });
        const reply = claimed.body.claims?.find(
          (c: { message: { body: string } }) => c.message.body === plan.replyBody,
        )?.message;
        r.send = mark(reply !== undefined);
        let fileOut = false;
        if (reply?.attachment) {
          const content = await api(server, 'GET', `/files/${reply.attachment.file_id}/content`, { key: peer.key });
          fileOut = content.text === outgoing.content;
        }
        r.fileOut = mark(fileOut);
        if (process.env.SWITCHBOARD_CLIENTS_DEBUG)
          console.log(client, transport, result.code, result.output.slice(-2000));
      });

      if (transport === 'cli') continue;
      for (const wrong of ['key', 'address'] as const) {
        if (!errorCell(client, transport, wrong)) continue;
        it(`${client} over ${transport}: a wrong ${wrong} reaches the person as our error text`, async () => {
          const me = wrong === 'key' ? { key: 'sbk_agt_AAAAAAAAAAAAAAAAAAAAAA.wrong-key' } : await agent(foreignHostId);
          const s = session(transport, me.key, PROMPT);
          const result = await run(client, s, probe());
          const code = wrong === 'key' ? 'unauthenticated' : 'source_ip_denied';
          row(client, transport)[wrong === 'key' ? 'wrongKey' : 'wrongAddress'] = refusalShown(result, code);
          if (process.env.SWITCHBOARD_CLIENTS_DEBUG) console.log(client, transport, wrong, result.output.slice(-1500));
        });
      }
    }
  }

  it('mcp-remote on its own, with a wrong key, prints why: no OAuth here, the key was refused', async () => {
    // After a 401 mcp-remote tries OAuth discovery and client registration and prints the body of
    // the last refusal, never the 401's: so those answers (core/domain/console-pages.ts) explain.
    const s = session('bridge', 'sbk_agt_AAAAAAAAAAAAAAAAAAAAAA.wrong-key', '');
    const { command, args } = bridge(s);
    const child = spawn(command, args, { cwd: s.work, env: baseEnv(s), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.stdout.resume();
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'suite', version: '1' } };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize })}\n`);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    clearTimeout(timer);
    expect(code, stderr).not.toBe(0);
    expect(stderr).toMatch(/does not use OAuth/);
    expect(stderr).toMatch(/401 unauthenticated/);
  });

  for (const client of ['claude', 'codex'] as const) {
    it(`${client}: two concurrent sessions of one configured client are one account competing for claims`, async () => {
      const [me, peer] = await Promise.all([agent(), agent()]);
      for (const body of ['first', 'second']) {
        await api(server, 'POST', '/messages/direct', {
          key: peer.key,
          body: { to_agent_ids: [me.agent.agent_id], body },
        });
      }
      const home = tempDir('switchboard-client-');
      const one = session('stdio', me.key, PROMPT, home);
      const two = { ...one, modelKey: `model-${randomUUID()}` };
      const [a, b] = await Promise.all([run(client, one, compete()), run(client, two, compete())]);
      const ids = [a, b].map((r) => {
        const results = r.requests.flatMap((q) => q.exchanges.map((e) => e.result));
        const who = results.map((t) => /"agent_id"\s*:\s*"([^"]+)"/.exec(t)?.[1]).find(Boolean);
        const claimed = results
          .map((t) => (t.includes('claim_token') ? /"message_id"\s*:\s*"([^"]+)"/.exec(t)?.[1] : undefined))
          .find(Boolean);
        return { who, claimed };
      });
      const after = await inbox(me.key);
      const ok =
        ids.every((x) => x.who === me.agent.agent_id) &&
        ids[0]?.claimed !== undefined &&
        ids[1]?.claimed !== undefined &&
        ids[0].claimed !== ids[1].claimed &&
        after.unread === 0;
      extra.set(`${client} two sessions`, { 'one account, disjoint claims, all ACKed (REQ-07)': mark(ok) });
    });
  }

  /**
   * Whether the newest entry of the request's conversation (Anthropic and Chat Completions
   * `messages`, Responses `input`, Gemini `contents`) carries a notice: a later request holds the
   * first request's notice in its history anyway, so only this shows that Stop handed it anew.
   */
  const newestHasNotice = (raw: string) => {
    try {
      const body = JSON.parse(raw) as Record<string, unknown>;
      const turns = [
        body.messages,
        body.input,
        body.contents,
        (body.request as Record<string, unknown>)?.contents,
      ].find(Array.isArray) as unknown[] | undefined;
      return JSON.stringify(turns?.at(-1) ?? '').includes(NOTICE_MARK);
    } catch {
      return false;
    }
  };
  for (const client of ['claude', 'codex', 'gemini', 'qwen'] as const) {
    it(`${client}: the wake-up hook puts the notice in the model's request and changes no message`, async () => {
      const [me, peer] = await Promise.all([agent(), agent()]);
      await api(server, 'POST', '/messages/direct', {
        key: peer.key,
        body: { to_agent_ids: [me.agent.agent_id], body: 'wake up' },
      });
      const s = { ...session('stdio', me.key, 'Anything new?'), hooks: true };
      const result = await run(client, s, idle());
      const main = result.requests.filter((q) => !q.side);
      const after = await inbox(me.key);
      extra.set(`${client} hooks`, {
        'notice in the first request': mark(main[0]?.notice === true),
        'stop hook: the model is asked to go on': mark(main.slice(1).some((q) => newestHasNotice(q.raw))),
        'no message changed state': mark(after.unread === 1 && after.claimable === 1 && after.leased === 0),
      });
      if (process.env.SWITCHBOARD_CLIENTS_DEBUG)
        console.log(
          client,
          'hooks',
          main.map((q) => newestHasNotice(q.raw)),
        );
    });
  }
});

/** The figures docs/clients.md quotes: tool count and listing size, stdio and remote. */
async function figures(): Promise<{ tools: number; stdio: number; remote: number }> {
  const key = (await agent()).key;
  const stdio = new Client({ name: 'client-suite', version: '1.0.0' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: cliEnv({
        SWITCHBOARD_CONFIG: tempConfig(),
        SWITCHBOARD_URL: server.url,
        SWITCHBOARD_API_KEY: key,
      }) as Record<string, string>,
    }),
  );
  const remote = new Client({ name: 'client-suite', version: '1.0.0' });
  await remote.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  const [a, b] = await Promise.all([stdio.listTools(), remote.listTools()]);
  await Promise.all([stdio.close(), remote.close()]);
  return { tools: a.tools.length, stdio: JSON.stringify(a.tools).length, remote: JSON.stringify(b.tools).length };
}

function table(header: string[], lines: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [fmt(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...lines.map(fmt)].join('\n');
}

function replaceBlock(doc: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/clients.md has no ${start} … ${end} block`);
  return `${doc.slice(0, from + start.length)}\n${body}\n${doc.slice(to)}`;
}

describe('the compatibility matrix in docs/clients.md', () => {
  it('matches what this run saw', async () => {
    const f = await figures();
    const fig = [
      `Generated by \`npm run test:clients\`: **${f.tools} tools**; the listing (\`tools/list\` as JSON) is`,
      `**${f.stdio.toLocaleString('en-US')} characters** over stdio and **${f.remote.toLocaleString('en-US')}** over \`/mcp\`.`,
    ].join('\n');
    const header = ['Client', 'Version', 'OS', 'Transport', 'Tools listed', 'Listing shown (chars)', 'Instructions'];
    header.push('Claim', 'File in', 'ACK', 'Send', 'File out', 'Wrong key', 'Wrong address');
    const lines: string[][] = [];
    for (const client of NAMES) {
      for (const transport of TRANSPORTS[client]) {
        const r = row(client, transport);
        lines.push([
          LABELS[client],
          version(client),
          OS,
          transport === 'bridge'
            ? `mcp-remote ${version('mcp-remote')}`
            : transport === 'http'
              ? '`/mcp` URL'
              : transport,
          r.listed ?? '–',
          r.shown ?? '–',
          r.instructions ?? '–',
          r.claim ?? '–',
          r.fileIn ?? '–',
          r.ack ?? '–',
          r.send ?? '–',
          r.fileOut ?? '–',
          r.wrongKey ?? '–',
          r.wrongAddress ?? '–',
        ]);
      }
    }
    lines.push([
      'Hermes Agent',
      '–',
      '–',
      'stdio',
      'untested: published on PyPI only, which this CI cannot reach',
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
    ]);
    const more = [...extra.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([what, checks]) => Object.entries(checks).map(([check, m]) => [what, check, m]));
    const matrix = `${table(header, lines)}\n\n${table(['Session', 'Check', 'Result'], more)}`;

    const doc = readFileSync(DOC, 'utf8');
    const next = replaceBlock(replaceBlock(doc, 'client-figures', fig), 'client-matrix', matrix);
    if (process.env.SWITCHBOARD_CLIENTS_WRITE === '1') writeFileSync(DOC, next);
    else
      expect(doc, 'docs/clients.md differs from this run: SWITCHBOARD_CLIENTS_WRITE=1 npm run test:clients').toBe(next);
  });
});
