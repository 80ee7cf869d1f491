/**
 * The launcher's log. Text (the default) keeps the few lifecycle lines it always printed and no
 * line per request. JSON (`--log-format json`) writes one object per line on stdout: one per
 * request, written by the front when the answer is over, and one per lifecycle event. A record
 * carries only what is listed here: no header, no query string, no body, so no key, token,
 * password or cookie can reach it. The ready line stays text in both formats: scripts wait for it.
 */
export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

export interface RequestRecord {
  request_id: string;
  method: string;
  /** The route template the worker matched (`/api/v1/channels/:id/messages`), else `static` for a
   *  console file, or the front's own refusal. Never the raw path, which may carry a query. */
  route: string;
  /** null when the client went away before any answer. */
  status: number | null;
  duration_ms: number;
  client_ip: string;
  agent_id?: string;
  admin?: string;
  /** The client closed the connection before the answer was complete. */
  aborted?: true;
}

type Level = 'info' | 'warn' | 'error';

export interface Writable {
  write(text: string): unknown;
}

export class ServerLog {
  constructor(
    readonly format: LogFormat,
    private readonly stdout: Writable = process.stdout,
    private readonly stderr: Writable = process.stderr,
  ) {}

  get json(): boolean {
    return this.format === 'json';
  }

  request(record: RequestRecord): void {
    if (!this.json) return;
    const level: Level = record.aborted ? 'warn' : record.status !== null && record.status >= 500 ? 'error' : 'info';
    this.line({ time: new Date().toISOString(), level, event: 'request', ...record });
  }

  /**
   * A lifecycle event. In text the message goes where it always went (`stream`); in JSON it is a
   * record on stdout with `fields`, which must never hold a secret.
   */
  event(
    event: string,
    message: string,
    options: { level?: Level; stream?: 'stdout' | 'stderr'; fields?: Record<string, string | number | boolean> } = {},
  ): void {
    if (this.json) {
      this.line({ time: new Date().toISOString(), level: options.level ?? 'info', event, message, ...options.fields });
      return;
    }
    (options.stream === 'stderr' ? this.stderr : this.stdout).write(`${message}\n`);
  }

  /** Text that is printed as is in both formats (the ready line). */
  raw(text: string): void {
    this.stdout.write(text);
  }

  private line(record: object): void {
    this.stdout.write(`${JSON.stringify(record)}\n`);
  }
}
