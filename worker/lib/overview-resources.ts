import { type RESOURCE_REASON_CODES, Resources, type Resources as ResourcesT } from '../../core/contract/models.js';

/** The reason every metric carries on Cloudflare, where a worker cannot see the machine it runs on. */
export const CLOUDFLARE_REASON =
  'Server resources are not available on Cloudflare Workers: a worker cannot read the CPU, memory, disk or GPU of the machine it runs on.';

/** The self-host launcher's metrics service answers this with the Resources JSON. */
export const HOST_METRICS_URL = 'http://host-metrics/resources';

function allUnavailable(
  reason: string,
  reason_code: (typeof RESOURCE_REASON_CODES)[number],
  params?: Record<string, number>,
): ResourcesT {
  const metric = { available: false as const, reason, reason_code, ...(params && { params }) };
  return { cpu: metric, memory: metric, disk: metric, gpu: metric };
}

/**
 * Reads CPU, memory, disk and GPU use from the launcher's `HOST_METRICS` service binding. No
 * binding means we run on Cloudflare; a failing or malformed answer is reported per metric with
 * its reason instead of failing the overview, because counts are still worth showing.
 */
export async function readResources(metrics: Pick<Fetcher, 'fetch'> | undefined): Promise<ResourcesT> {
  if (!metrics) return allUnavailable(CLOUDFLARE_REASON, 'cloudflare');
  let response: Response;
  try {
    response = await metrics.fetch(HOST_METRICS_URL, { headers: { accept: 'application/json' } });
  } catch (error) {
    return allUnavailable(`The server's metrics service did not answer: ${describe(error)}.`, 'metrics_unreachable');
  }
  if (!response.ok) {
    await response.body?.cancel();
    return allUnavailable(`The server's metrics service answered HTTP ${response.status}.`, 'metrics_http_error', {
      status: response.status,
    });
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    return allUnavailable(`The server's metrics service answered something that is not JSON.`, 'metrics_not_json');
  }
  const parsed = Resources.safeParse(json);
  if (!parsed.success) {
    return allUnavailable(
      `The server's metrics service answered an unexpected shape (${parsed.error.issues[0]?.message}).`,
      'metrics_bad_shape',
    );
  }
  return parsed.data;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
