import { describe, expect, it } from 'vitest';
import { CLOUDFLARE_REASON, HOST_METRICS_URL, readResources } from '../../worker/lib/overview-resources.js';
import { adminCookie, call, createAgent, createHost } from './helpers.js';

/** A service binding answering like the launcher's metrics service would (or failing). */
function metricsService(answer: (url: string) => Response | Promise<Response>) {
  const seen: string[] = [];
  return {
    seen,
    fetch: async (input: RequestInfo | URL) => {
      const url = input instanceof Request ? input.url : String(input);
      seen.push(url);
      return answer(url);
    },
  } as unknown as Fetcher & { seen: string[] };
}

describe('GET /admin/overview', () => {
  it('counts hosts, agents and enabled agents, and says resources are unavailable on Cloudflare', async () => {
    const cookie = await adminCookie();
    const before = await call('GET', '/admin/overview', { cookie });
    expect(before.status).toBe(200);
    const host = await createHost(cookie, ['10.0.0.1']);
    await createHost(cookie, ['10.0.0.2', '10.0.0.3']);
    const { agent } = await createAgent(cookie, host.host_id);
    await createAgent(cookie, host.host_id);
    expect((await call('PATCH', `/admin/agents/${agent.agent_id}`, { cookie, body: { enabled: false } })).status).toBe(
      200,
    );

    const res = await call('GET', '/admin/overview', { cookie });
    expect(res.status).toBe(200);
    expect(res.body.counts.hosts).toBe(before.body.counts.hosts + 2);
    expect(res.body.counts.agents).toBe(before.body.counts.agents + 2);
    expect(res.body.counts.enabled_agents).toBe(before.body.counts.enabled_agents + 1);
    const cleanup = await call('GET', '/admin/cleanup', { cookie });
    expect(res.body.counts).toMatchObject({
      cleanup_pending: cleanup.body.pending_jobs,
      cleanup_failed: cleanup.body.failed_jobs,
    });
    for (const name of ['cpu', 'memory', 'disk', 'gpu']) {
      expect(res.body.resources[name]).toEqual({
        available: false,
        reason: CLOUDFLARE_REASON,
        reason_code: 'cloudflare',
      });
    }
  });

  it('is for administrators only', async () => {
    expect((await call('GET', '/admin/overview')).status).toBe(401);
  });
});

describe('readResources (the HOST_METRICS binding)', () => {
  const figures = {
    cpu: { available: true, utilization_percent: 12.5, detail: '8 cores' },
    memory: { available: true, utilization_percent: 40, used_bytes: 4e9, total_bytes: 1e10 },
    disk: { available: true, utilization_percent: 70, used_bytes: 7e11, total_bytes: 1e12 },
    gpu: { available: false, reason: 'nvidia-smi not found' },
  };

  it('passes the launcher figures through, per metric', async () => {
    const service = metricsService(() => Response.json(figures));
    expect(await readResources(service)).toEqual(figures);
    expect(service.seen).toEqual([HOST_METRICS_URL]);
  });

  it('reports every metric unavailable, with the reason, when the service fails', async () => {
    const cases: [Fetcher, RegExp][] = [
      [
        metricsService(() => {
          throw new Error('connection refused');
        }),
        /did not answer: connection refused/,
      ],
      [metricsService(() => new Response('nope', { status: 500 })), /HTTP 500/],
      [metricsService(() => new Response('<html>', { status: 200 })), /not JSON/],
      [metricsService(() => Response.json({ cpu: { available: true } })), /unexpected shape/],
    ];
    for (const [service, reason] of cases) {
      const resources = await readResources(service);
      for (const metric of Object.values(resources)) {
        expect(metric.available).toBe(false);
        if (!metric.available) expect(metric.reason).toMatch(reason);
      }
    }
  });

  it('without a binding (Cloudflare) names the platform as the reason', async () => {
    const resources = await readResources(undefined);
    expect(resources.gpu).toEqual({ available: false, reason: CLOUDFLARE_REASON, reason_code: 'cloudflare' });
  });
});
