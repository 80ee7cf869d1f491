// The import phase of `npm run bench`: agents created through POST /admin/agents/import, in
// requests of IMPORT_ROWS_MAX rows, timed from the first request to the last answer (every agent
// pushed to its own object, so every key works when its request answers). Target: at least
// IMPORT_TARGET_PER_SECOND agents per second. Checks as it goes: a sample of the new keys opens
// GET /me, and an import with one bad row is refused whole and creates nothing.
// `--quick` imports a few dozen agents and checks correctness, never speed;
// SWITCHBOARD_BENCH_IMPORT_AGENTS overrides the full run's 2,000 agents.

/** Agents per second the import must reach on the reference machine. */
export const IMPORT_TARGET_PER_SECOND = 200;
const ROWS_PER_REQUEST = 500;

export async function importRun({ quick, log, api, cookie }) {
  const total = quick ? 40 : Number(process.env.SWITCHBOARD_BENCH_IMPORT_AGENTS ?? 2_000);
  const perRequest = quick ? 20 : ROWS_PER_REQUEST;
  const problems = [];
  const hostName = `bench-import-${Date.now()}`;
  const host = await api('POST', '/admin/hosts', { cookie, body: { name: hostName, addresses: ['127.0.0.1'] } });
  if (host.status !== 201) throw new Error(`import host: ${host.status}`);

  // Refused whole: the last row names a host that does not exist.
  const refused = await api('POST', '/admin/agents/import', {
    cookie,
    body: {
      agents: [
        { name: 'imp-refused-ok', host: hostName },
        { name: 'imp-refused-bad', host: 'no-such-host' },
      ],
    },
  });
  // An unknown host is refused by the current state, not by a column's rule: 409 conflict.
  if (refused.status !== 409 || refused.body?.error?.rows?.[0]?.row !== 2) {
    problems.push(`a bad row was not refused whole: ${refused.status}`);
  }

  const keys = [];
  const started = performance.now();
  for (let start = 0; start < total; start += perRequest) {
    const rows = [];
    for (let i = start; i < Math.min(total, start + perRequest); i++) {
      rows.push({ name: `imp-${i}`, host: hostName, description: `imported agent ${i}` });
    }
    const res = await api('POST', '/admin/agents/import', { cookie, body: { agents: rows } });
    if (res.status !== 201) throw new Error(`import: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    for (const a of res.body.agents) {
      if (a.pending) problems.push(`${a.agent.name} still pending`);
      keys.push(a.api_key);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const perSecond = Math.round(total / seconds);

  const listed = await api('GET', `/admin/agents?host_id=${host.body.host.host_id}&limit=1`, { cookie });
  if (listed.body?.total !== total) problems.push(`${listed.body?.total} agents listed, ${total} imported`);
  for (const key of [keys[0], keys[Math.floor(keys.length / 2)], keys.at(-1)]) {
    const me = await api('GET', '/me', { key });
    if (me.status !== 200) problems.push(`an imported key answered ${me.status}`);
  }
  const holds = perSecond >= IMPORT_TARGET_PER_SECOND;
  log(
    `import: ${total} agents in ${Math.ceil(total / perRequest)} requests, ${seconds.toFixed(2)} s, ` +
      `${perSecond} agents/s (target ${IMPORT_TARGET_PER_SECOND}) → ${holds ? 'holds' : 'fails'}`,
  );
  return { agents: total, perRequest, seconds: Number(seconds.toFixed(2)), perSecond, holds, problems };
}
