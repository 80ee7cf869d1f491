/**
 * `/mcp` inline uploads are admitted before their body is read: 20 concurrent `send_message`
 * calls, each carrying a 3.9 MB file in base64 (5.2 MB of JSON), from one agent. The agent's share
 * of upload admission lets a few through; the rest are refused with `upload_admission_denied`
 * before a byte of their body is parsed or decoded, so workerd's resident memory (VmRSS of the
 * launcher's workerd child, sampled through the attack) stays near what it was idle (MAX_RISE_MB).
 * The admitted calls deliver their file; the refused ones store nothing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, type Server, startWithAliceAndBob, type TestAgent } from './harness.js';
import { processTree, rssMb } from './processes.js';

let server: Server;
let alice: TestAgent;
let bob: TestAgent;

const CALLS = 20;
const FILE_BYTES = 3_900_000;
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** The tool result of one JSON-RPC call answered as SSE or JSON, or the HTTP-level error. */
function rpcOutcome(status: number, text: string): { result?: any; error?: any } {
  const data = /^data: (.+)$/m.exec(text)?.[1] ?? text;
  try {
    return JSON.parse(data);
  } catch {
    return { error: { code: status, message: text } };
  }
}

beforeAll(async () => {
  ({ server, alice, bob } = await startWithAliceAndBob());
  // Warm the MCP path once (isolate, tools), with a small file, so idle is measured warm.
  const warm = await fetch(new URL('/mcp', server.url), {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${alice.key}` },
    body: JSON.stringify(sendCall(0, Buffer.alloc(1000, 1).toString('base64'))),
  });
  expect(rpcOutcome(warm.status, await warm.text()).result?.isError).toBeFalsy();
});
afterAll(async () => {
  await server?.stop();
});

function sendCall(id: number, base64: string) {
  return {
    jsonrpc: '2.0',
    method: 'tools/call',
    params: {
      name: 'send_message',
      arguments: {
        to_agent_ids: [bob.agent.agent_id],
        body: `attack ${id}`,
        file: { filename: `f${id}.bin`, content_base64: base64 },
      },
    },
    id,
  };
}

/**
 * How far above idle workerd may go. Before admission moved ahead of the read, the attack took it
 * about 460 MB above idle. Now only the admitted calls (the agent's share, and any let in as the
 * first ones finish) hold their bytes, each one copy of its file: the body, decoded in place and
 * staged from there (docs/benchmarks.md, "/mcp inline uploads"). What remains is mostly the
 * runtime's: Miniflare's R2 object growing for the first large objects it stores, the refused
 * bodies read and dropped, and garbage no collection reaches during the attack. The target is
 * 64 MB; a clean-clone run with the suite beside it rose 91 MB, so the bound stays at 128 until
 * that remainder is gone (a streaming decode from the network, a cheaper drain of refused bodies).
 */
const MAX_RISE_MB = 128;

it('20 concurrent 3.9 MB inline uploads: refused before decoding, workerd RSS stays near idle', async () => {
  const pids = processTree(server.pid)
    .filter((p) => p.comm === 'workerd')
    .map((p) => p.pid);
  expect(pids.length).toBeGreaterThan(0);
  const idle = rssMb(pids);
  const base64 = Buffer.alloc(FILE_BYTES, 7).toString('base64');
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pids));
  }, 20);
  const attack = Promise.all(
    Array.from({ length: CALLS }, async (_, i) => {
      const res = await fetch(new URL('/mcp', server.url), {
        method: 'POST',
        headers: { ...MCP_HEADERS, authorization: `Bearer ${alice.key}` },
        body: JSON.stringify(sendCall(i + 1, base64)),
      });
      return { status: res.status, ...rpcOutcome(res.status, await res.text()) };
    }),
  );
  const outcomes = await attack.finally(() => clearInterval(sampler));
  peak = Math.max(peak, rssMb(pids));

  const sent = outcomes.filter((o) => o.result && !o.result.isError);
  const refused = outcomes.filter((o) => !(o.result && !o.result.isError));
  expect(sent.length).toBeGreaterThan(0);
  expect(refused.length).toBeGreaterThan(0);
  for (const o of refused) {
    // A clear refusal: the tool's error result, or a JSON-RPC error naming the code.
    const code =
      o.result?.structuredContent?.error?.code ?? /upload_admission_denied/.exec(o.error?.message ?? '')?.[0];
    expect(code, JSON.stringify(o).slice(0, 300)).toBe('upload_admission_denied');
  }
  expect(peak - idle, `workerd ${idle.toFixed(0)} MB idle, ${peak.toFixed(0)} MB at peak`).toBeLessThan(MAX_RISE_MB);

  // Only the admitted calls stored anything: bob's inbox holds the warm-up and those.
  const inbox = await api(server, 'GET', '/inbox', { key: bob.key });
  expect(inbox.body.unread).toBe(1 + sent.length);
}, 120_000);
