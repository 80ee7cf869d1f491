/**
 * Raw HTTP/1.1 over `node:net`, for requests no HTTP client will send: smuggling attempts,
 * malformed framing, obs-fold, NUL bytes, bad methods. The answer is parsed by hand (status line,
 * headers, a Content-Length or chunked body) so that a malformed answer is visible too.
 */
import net from 'node:net';
import type { ApiResponse } from '../harness.js';

export interface RawOptions {
  /** Bytes to send after the request head (or in pieces: each element is one write). */
  chunks?: (string | Buffer)[];
  /** Bind the client socket to this local address. */
  localAddress?: string;
  /** Give up (and report status 0) after this long without a complete answer. */
  timeoutMs?: number;
}

/** Parses one HTTP/1.1 response from the front of `data`; null while it is incomplete. */
export function parseResponse(data: Buffer, ended: boolean): ApiResponse | null {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const head = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '');
  if (!statusLine) throw new Error(`not an HTTP answer: ${JSON.stringify(head[0])}`);
  const headers: Record<string, string | string[]> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const previous = headers[name];
    if (name === 'set-cookie') headers[name] = [...((previous as string[] | undefined) ?? []), value];
    else headers[name] = previous === undefined ? value : `${previous}, ${value}`;
  }
  let rest = data.subarray(headEnd + 4);
  let body: Buffer;
  const length = headers['content-length'];
  if (typeof length === 'string') {
    if (rest.length < Number(length)) return null;
    body = rest.subarray(0, Number(length));
  } else if (/chunked/i.test(String(headers['transfer-encoding'] ?? ''))) {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd < 0) return null;
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (size === 0) break;
      if (rest.length < lineEnd + 2 + size + 2) return null;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(parts);
  } else {
    // No framing: the body runs to the end of the connection.
    if (!ended) return null;
    body = rest;
  }
  const text = body.toString('utf8');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: Number(statusLine[1]), body: parsed, text, headers: headers as ApiResponse['headers'] };
}

/**
 * Sends `head` (the request line and headers, CRLFs included, up to and including the blank line)
 * and then `chunks`, and resolves with the first answer. A connection closed without an answer
 * resolves with status 0, so a test states what it expected instead of timing out.
 */
export function rawRequest(url: string, head: string | Buffer, options: RawOptions = {}): Promise<ApiResponse> {
  const target = new URL(url);
  return new Promise((done, fail) => {
    const socket = net.connect({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port),
      localAddress: options.localAddress,
    });
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (answer: ApiResponse | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) fail(error);
      else done(answer ?? { status: 0, body: data.toString('latin1'), text: data.toString('latin1'), headers: {} });
    };
    const timer = setTimeout(() => finish(null), options.timeoutMs ?? 15_000);
    const tryParse = (ended: boolean) => {
      try {
        const answer = parseResponse(data, ended);
        if (answer) finish(answer);
        else if (ended) finish(null);
      } catch (error) {
        finish(null, error as Error);
      }
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    // The server may close as soon as it has answered; a reset after that is not a failure.
    socket.on('error', () => tryParse(true));
    socket.on('connect', () => {
      socket.write(head);
      for (const chunk of options.chunks ?? []) socket.write(chunk);
    });
  });
}

/** A request head: the request line, then `Name: value` lines, then the blank line. */
export function requestHead(requestLine: string, headers: [string, string][]): string {
  return `${requestLine}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
}
