/**
 * Prometheus metrics (api-v1.md "Operations"). Request and event counters live in this isolate's
 * memory: counting is a few map updates on the request path and no storage write. A scrape reads
 * them and adds what the objects already keep as aggregates: agents by key state (one query in
 * the registry, which also checks the token), cleanup jobs and the channel catalog's totals (the
 * retention object). No agent or channel object is opened by a scrape.
 *
 * Counters restart at zero with the process (Prometheus' `rate()` handles resets). On Cloudflare,
 * where many isolates serve one worker, each scrape sees the counters of the isolate it reached.
 */

import type { OperationId } from '../core/contract/index.js';
import type { AgentKeyCount } from '../core/rpc.js';
import { version } from '../package.json';

/** Seconds; Prometheus' default buckets, which span a LAN request and a slow upload. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

const requests = new Map<string, number>();
const durations = new Map<string, Histogram>();
const refused = new Map<string, number>();
const events = new Map<string, number>();

/**
 * Events an operation's answer reports, counted from that answer (the handler's output), so no
 * handler carries metrics code. Extend and release of claims count here when they exist:
 * `extendClaims: (o) => [['claim_extensions', count of status "extended"]]`, and so on.
 */
type Output = Record<string, unknown>;
const countOf = (list: unknown, status: string) =>
  Array.isArray(list) ? list.filter((item) => (item as { status?: unknown }).status === status).length : 0;
const EVENT_COUNTERS: Partial<Record<OperationId, (output: Output) => [string, number][]>> = {
  sendDirect: (o) => [['messages_sent', countOf(o.results, 'sent')]],
  sendGroupMessage: (o) => [['messages_sent', o.status === 'sent' ? 1 : 0]],
  claimMessages: (o) => [['claims', Array.isArray(o.claims) ? o.claims.length : 0]],
  ackMessages: (o) => [['acks', countOf(o.results, 'read')]],
  extendClaims: (o) => [['extends', countOf(o.results, 'extended')]],
  releaseClaims: (o) => [['releases', countOf(o.results, 'released')]],
};
const EVENT_HELP: Record<string, string> = {
  messages_sent: 'Messages stored (answered sent), one per target.',
  claims: 'Deliveries handed out by claims.',
  acks: 'Deliveries ACKed (status read).',
  extends: 'Claims extended (status extended).',
  releases: 'Claims released (status released).',
};

const bump = (map: Map<string, number>, key: string, by = 1) => map.set(key, (map.get(key) ?? 0) + by);

export function countRequest(method: string, route: string, status: number, seconds: number): void {
  const label = `${method} ${route}`;
  bump(requests, `${label}\u0000${Math.floor(status / 100)}xx`);
  let histogram = durations.get(label);
  if (!histogram) {
    histogram = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
    durations.set(label, histogram);
  }
  for (let i = 0; i < BUCKETS.length; i++) if (seconds <= (BUCKETS[i] as number)) (histogram.counts[i] as number)++;
  histogram.sum += seconds;
  histogram.count++;
}

export function countRefusal(code: string): void {
  bump(refused, code);
}

export function countEvents(operationId: string, output: unknown): void {
  const counter = EVENT_COUNTERS[operationId as OperationId];
  if (!counter || typeof output !== 'object' || output === null) return;
  for (const [name, n] of counter(output as Output)) if (n > 0) bump(events, name, n);
}

/** A label value as the text format wants it: backslash, quote and newline escaped. */
const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

export interface ScrapeFigures {
  agents: AgentKeyCount[];
  /** Refused requests that named an agent, by reason, since the registry began (its durable counts). */
  refusals: Record<string, number>;
  /** Unread deliveries over every channel, as the channels last reported them (oldest in ms, null: none). */
  backlog: { unread: number; leased: number; parked: number; oldest_unread_at: number | null };
  cleanup: { pending_jobs: number; failed_jobs: number };
  catalog: { private_channels: number; group_channels: number; messages: number; files: number };
}

export function renderMetrics(figures: ScrapeFigures): string {
  const lines: string[] = [];
  const family = (name: string, type: string, help: string) => {
    lines.push(`# HELP switchboard_${name} ${help}`, `# TYPE switchboard_${name} ${type}`);
  };

  family('build_info', 'gauge', 'The running release.');
  lines.push(`switchboard_build_info{version=${quote(version)}} 1`);

  family('http_requests_total', 'counter', 'Requests answered, by method and route and status class.');
  for (const [key, n] of requests) {
    const [route, status] = key.split('\u0000') as [string, string];
    const [method, path] = route.split(' ') as [string, string];
    lines.push(
      `switchboard_http_requests_total{method=${quote(method)},route=${quote(path)},status=${quote(status)}} ${n}`,
    );
  }

  family('http_request_duration_seconds', 'histogram', 'Time to the answer, by method and route.');
  for (const [route, histogram] of durations) {
    const [method, path] = route.split(' ') as [string, string];
    const labels = `method=${quote(method)},route=${quote(path)}`;
    BUCKETS.forEach((bound, i) => {
      lines.push(`switchboard_http_request_duration_seconds_bucket{${labels},le="${bound}"} ${histogram.counts[i]}`);
    });
    lines.push(`switchboard_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${histogram.count}`);
    lines.push(`switchboard_http_request_duration_seconds_sum{${labels}} ${histogram.sum}`);
    lines.push(`switchboard_http_request_duration_seconds_count{${labels}} ${histogram.count}`);
  }

  family('refused_requests_total', 'counter', 'Requests answered with an error, by error code.');
  for (const [code, n] of refused) lines.push(`switchboard_refused_requests_total{code=${quote(code)}} ${n}`);

  for (const [name, help] of Object.entries(EVENT_HELP)) {
    family(`${name}_total`, 'counter', help);
    lines.push(`switchboard_${name}_total ${events.get(name) ?? 0}`);
  }

  family('agents', 'gauge', 'Agents, by key state and whether they are enabled.');
  for (const row of figures.agents) {
    lines.push(
      `switchboard_agents{key_status=${quote(row.key_status)},enabled=${quote(String(Boolean(row.enabled)))}} ${row.agents}`,
    );
  }

  family(
    'cleanup_jobs',
    'gauge',
    'File deletion jobs left, by state (pending: not done yet; failed: retried after an error).',
  );
  lines.push(`switchboard_cleanup_jobs{state="pending"} ${figures.cleanup.pending_jobs}`);
  lines.push(`switchboard_cleanup_jobs{state="failed"} ${figures.cleanup.failed_jobs}`);

  family(
    'agent_refusals_total',
    'counter',
    'Refused requests that named an agent, by reason (wrong_key is a lower bound: at most one per agent per 10 s).',
  );
  for (const [reason, n] of Object.entries(figures.refusals))
    lines.push(`switchboard_agent_refusals_total{reason=${quote(reason)}} ${n}`);

  family(
    'deliveries',
    'gauge',
    'Unread deliveries by state (unread: all not ACKed, leased and parked among them), as the channels last reported them (within about 30 s).',
  );
  lines.push(`switchboard_deliveries{state="unread"} ${figures.backlog.unread}`);
  lines.push(`switchboard_deliveries{state="leased"} ${figures.backlog.leased}`);
  lines.push(`switchboard_deliveries{state="parked"} ${figures.backlog.parked}`);
  family('oldest_unread_age_seconds', 'gauge', 'Age of the oldest unread delivery (0 when nothing is unread).');
  lines.push(
    `switchboard_oldest_unread_age_seconds ${
      figures.backlog.oldest_unread_at === null
        ? 0
        : Math.max(0, (Date.now() - figures.backlog.oldest_unread_at) / 1000)
    }`,
  );

  family('channels', 'gauge', 'Channels in the catalog, by kind.');
  lines.push(`switchboard_channels{kind="private"} ${figures.catalog.private_channels}`);
  lines.push(`switchboard_channels{kind="group"} ${figures.catalog.group_channels}`);
  family('retained_messages', 'gauge', 'Retained messages, as the channels last reported them (within about 30 s).');
  lines.push(`switchboard_retained_messages ${figures.catalog.messages}`);
  family('retained_files', 'gauge', 'Retained files, as the channels last reported them (within about 30 s).');
  lines.push(`switchboard_retained_files ${figures.catalog.files}`);
  return `${lines.join('\n')}\n`;
}
