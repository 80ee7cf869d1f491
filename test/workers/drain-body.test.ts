/**
 * Every request body is read to its end before the answer leaves (worker/body/drain.ts),
 * whatever the route, the status or the handler did with it: workerd closes, or resets without
 * answering, a connection whose request body the worker left unread (issue 10, item 3). The
 * whole path over real sockets, with a keep-alive client, is test/e2e/keep-alive.test.ts.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { operationList } from '../../core/contract/index.js';
import { createApp } from '../../worker/app.js';
import { drainAfterAnswer, drainBody, relayBody } from '../../worker/body/drain.js';
import { adminCookie, createAgent, createHost } from './helpers.js';

/** A request body that records how far it was read, and whether it was cancelled. */
function countedBody(chunks: number, chunkBytes = 16 * 1024, endless = false) {
  const state = { pulled: 0, finished: false, cancelled: false };
  const chunk = new Uint8Array(chunkBytes).fill(0x7b);
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!endless && state.pulled === chunks) {
          state.finished = true;
          controller.close();
          return;
        }
        state.pulled++;
        controller.enqueue(chunk.slice());
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

describe('drainBody and relayBody', () => {
  it('reads what a consumer left after reading part and cancelling', async () => {
    const { stream, state } = countedBody(20);
    const relay = relayBody(stream);
    const reader = relay.body.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    expect(state.finished).toBe(false);
    expect(await drainBody(await relay.leftover())).toBe(true);
    expect(state).toEqual({ pulled: 20, finished: true, cancelled: false });
  });

  it('passes every byte through to a consumer that reads it all', async () => {
    const { stream, state } = countedBody(5, 1000);
    const relay = relayBody(stream);
    const bytes = new Uint8Array(await new Response(relay.body).arrayBuffer());
    expect(bytes.byteLength).toBe(5000);
    expect(await drainBody(await relay.leftover())).toBe(true);
    expect(state.finished).toBe(true);
  });

  it('stops at the byte bound, leaving the rest for after the answer', async () => {
    const { stream, state } = countedBody(100, 1024);
    const reader = stream.getReader();
    expect(await drainBody(reader, 10 * 1024)).toBe(false);
    expect(state.pulled).toBeLessThan(100);
    expect(state.cancelled).toBe(false);
    await drainAfterAnswer(reader);
    expect(state.finished).toBe(true);
  });

  it('stops at the time bound on a body that never ends', async () => {
    let cancelled = false;
    const never = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(1));
      },
      cancel() {
        cancelled = true;
      },
    });
    expect(await drainBody(never.getReader(), 1_000_000, 50)).toBe(false);
    expect(cancelled).toBe(false);
  });
});

describe('every route reads the whole body before answering', () => {
  const app = createApp();
  const ids: Record<string, string> = {
    host_id: 'hst_AAAAAAAAAAAAAAAAAAAAAA',
    agent_id: 'agt_AAAAAAAAAAAAAAAAAAAAAA',
    group_id: 'grp_AAAAAAAAAAAAAAAAAAAAAA',
    channel_id: 'grp_AAAAAAAAAAAAAAAAAAAAAA',
    file_id: 'fil_AAAAAAAAAAAAAAAAAAAAAA',
  };
  const pathOf = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? 'x');

  async function send(method: string, path: string, headers: Record<string, string>, body: 'json' | 'large') {
    const { stream, state } = body === 'json' ? countedBody(1, 2) : countedBody(64);
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request(`https://switchboard.test${path}`, {
        method,
        headers: { 'cf-connecting-ip': '10.9.0.1', 'content-type': 'application/json', ...headers },
        body: stream,
      }),
      env,
      ctx,
    );
    const finishedBeforeAnswer = state.finished;
    await response.arrayBuffer();
    await waitOnExecutionContext(ctx);
    return { status: response.status, finishedBeforeAnswer, requestId: response.headers.get('x-request-id') };
  }

  it('for every operation of the registry, signed in or not, and for unknown routes', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.9.0.1']);
    const { key } = await createAgent(cookie, host.host_id);
    // GET and HEAD requests cannot carry a body in a Request built here; the e2e test sends them.
    const withBody = operationList.filter((op) => op.method !== 'get');
    expect(withBody.length).toBeGreaterThan(15);
    const seen = new Set<number>();
    for (const op of withBody) {
      const credentials: Record<string, string> =
        op.role === 'admin' ? { cookie } : op.role === 'agent' ? { authorization: `Bearer ${key}` } : {};
      for (const headers of [{}, credentials]) {
        for (const body of ['json', 'large'] as const) {
          const result = await send(op.method.toUpperCase(), `/api/v1${pathOf(op.path)}`, headers, body);
          seen.add(result.status);
          expect(result, `${op.id} ${body}`).toMatchObject({ finishedBeforeAnswer: true });
          expect(result.requestId).toMatch(/^req_/);
        }
      }
    }
    for (const [method, path] of [
      ['POST', '/api/v1/nope'],
      ['PUT', '/api/v1/me'],
      ['POST', '/openapi.json'],
    ] as const) {
      expect(await send(method, path, {}, 'large')).toMatchObject({ finishedBeforeAnswer: true });
    }
    // Refusals and successes alike.
    expect([...seen].some((status) => status < 300)).toBe(true);
    expect([...seen].some((status) => status >= 400)).toBe(true);
  });

  it('past the byte bound, answers first and reads the rest after the answer', async () => {
    // 64 MB + 1 MB of body: more than DRAIN_MAX_BYTES.
    const { stream, state } = countedBody(65 * 64, 16 * 1024);
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request('https://switchboard.test/api/v1/groups', {
        method: 'POST',
        headers: { 'cf-connecting-ip': '10.9.0.1', 'content-type': 'application/json' },
        body: stream,
      }),
      env,
      ctx,
    );
    // The answer came before the body was all read...
    expect(state.finished).toBe(false);
    expect(response.status).toBe(401);
    expect((await response.json()) as object).toMatchObject({ error: { code: 'unauthenticated' } });
    // ...and the rest was read after it, not cancelled (workerd would reset the connection).
    await waitOnExecutionContext(ctx);
    expect(state).toMatchObject({ finished: true, cancelled: false });
  });
});
