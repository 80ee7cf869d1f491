/**
 * Request bodies are read into one reused buffer when the runtime offers a byte stream
 * (worker/body/reader.ts), and the relay that every non-JSON body passes through hands that
 * reader to the upload path without a JavaScript stream in between (relayBody's `direct`).
 */
import { describe, expect, it } from 'vitest';
import { drainBody, relayBody } from '../../worker/body/drain.js';
import { BODY_READ_BYTES, bodyReader } from '../../worker/body/reader.js';

function pattern(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + 7) & 0xff;
  return bytes;
}

/** A runtime request body (a byte stream, as workerd gives for a socket or a buffer). */
function runtimeBody(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new Request('https://x/', { method: 'POST', body: bytes }).body!;
}

/** Reads to the end, copying each read before the next one (the contract of a reused buffer). */
async function readAll(reader: { read(): Promise<ReadableStreamReadResult<Uint8Array>> }) {
  const parts: Uint8Array[] = [];
  const buffers = new Set<number>();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffers.add(value.buffer.byteLength);
    parts.push(value.slice());
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return { bytes: out, reads: parts.length, bufferSizes: [...buffers] };
}

describe('bodyReader', () => {
  it('reads a runtime body into its one buffer, every byte in order', async () => {
    const bytes = pattern(5 * BODY_READ_BYTES + 123);
    const reader = bodyReader(runtimeBody(bytes));
    expect(reader.reusesBuffer).toBe(true);
    const read = await readAll(reader);
    expect(read.bytes).toEqual(bytes);
    expect(read.reads).toBeGreaterThan(1);
    // Every answer is a view of a BODY_READ_BYTES buffer: the caller's, handed back, never a fresh chunk.
    expect(read.bufferSizes).toEqual([BODY_READ_BYTES]);
  });

  it('falls back to the default reader for a stream built in JavaScript', async () => {
    const bytes = pattern(3000);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 1000));
        controller.enqueue(bytes.slice(1000));
        controller.close();
      },
    });
    const reader = bodyReader(stream);
    expect(reader.reusesBuffer).toBe(false);
    const read = await readAll(reader);
    expect(read.bytes).toEqual(bytes);
    expect(read.reads).toBe(2);
  });

  it('queues reads made while one is under way, as a default reader does', async () => {
    const bytes = pattern(10);
    const reader = bodyReader(runtimeBody(bytes));
    const first = reader.read();
    const second = reader.read();
    const a = await first;
    expect(a.done).toBe(false);
    expect(a.value).toEqual(bytes);
    expect((await second).done).toBe(true);
  });
});

describe('relayBody.direct', () => {
  it('hands the handler the runtime bytes through the reused buffer', async () => {
    const bytes = pattern(3 * BODY_READ_BYTES + 5);
    const relay = relayBody(runtimeBody(bytes));
    const read = await readAll(relay.direct());
    expect(read.bytes).toEqual(bytes);
    expect(read.bufferSizes).toEqual([BODY_READ_BYTES]);
    expect(await drainBody(await relay.leftover())).toBe(true);
  });

  it('stops on cancel without cancelling the runtime body, whose rest the drain reads', async () => {
    let cancelled = false;
    let pulls = 0;
    const chunk = pattern(4096);
    const byteSource: UnderlyingByteSource = {
      type: 'bytes',
      pull(controller) {
        if (pulls++ === 20) controller.close();
        else controller.enqueue(chunk.slice());
      },
      cancel() {
        cancelled = true;
      },
    };
    const source = new ReadableStream(byteSource) as ReadableStream<Uint8Array>;
    const relay = relayBody(source);
    const direct = relay.direct();
    expect((await direct.read()).done).toBe(false);
    await direct.cancel();
    expect((await direct.read()).done).toBe(true);
    expect(await drainBody(await relay.leftover())).toBe(true);
    expect(cancelled).toBe(false);
    expect(pulls).toBe(21);
  });

  it('gives the stream side copies, so a chunk kept by a handler is not overwritten', async () => {
    const bytes = pattern(2 * BODY_READ_BYTES + 77);
    const relay = relayBody(runtimeBody(bytes));
    const reader = relay.body.getReader();
    const kept: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      kept.push(value);
    }
    const out = new Uint8Array(bytes.length);
    let at = 0;
    for (const k of kept) {
      out.set(k, at);
      at += k.length;
    }
    expect(out).toEqual(bytes);
  });
});
