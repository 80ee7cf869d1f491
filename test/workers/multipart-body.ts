/** Builds raw multipart/form-data bodies for tests, byte for byte (also malformed ones). */
const enc = new TextEncoder();

export interface RawPart {
  headers: string;
  data: Uint8Array | string;
}

export interface FormPart {
  name: string;
  filename?: string;
  type?: string;
  data: Uint8Array | string;
}

/** Parts with literal header text, in order, after an optional preamble. */
export function multipartBody(boundary: string, parts: RawPart[], preamble = ''): Uint8Array {
  const chunks: Uint8Array[] = [enc.encode(preamble)];
  for (const part of parts) {
    chunks.push(enc.encode(`--${boundary}\r\n${part.headers}\r\n\r\n`));
    chunks.push(typeof part.data === 'string' ? enc.encode(part.data) : part.data);
    chunks.push(enc.encode('\r\n'));
  }
  chunks.push(enc.encode(`--${boundary}--\r\n`));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The headers of an ordinary form field or file part. */
export function formPart({ name, filename, type, data }: FormPart): RawPart {
  const disposition = `form-data; name="${name}"${filename !== undefined ? `; filename="${filename}"` : ''}`;
  return { headers: `Content-Disposition: ${disposition}${type ? `\r\nContent-Type: ${type}` : ''}`, data };
}
