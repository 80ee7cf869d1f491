/**
 * `switchboard admin channels download CHANNEL FILE --out PATH`, generated from the registry's
 * downloadAdminChannelFile: an administrator's CLI writes any channel's attachment to a local
 * path and prints what it wrote; a file of another channel is exit 3 not_found.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../client/errors.js';
import { runCli, tempConfig } from './cli-process.js';
import { adminLogin, api, createAgent, createHost, type Server, startServer, tempDir } from './harness.js';

let server: Server;
let config: string;
const env = () => ({ SWITCHBOARD_CONFIG: config });
const DATA = 'tab\tseparated\nbytes: \u00e9\u20ac\n';

beforeAll(async () => {
  server = await startServer();
  config = tempConfig();
  expect((await runCli(['login', '--url', server.url], { env: env() })).code).toBe(EXIT.ok);
  const login = await runCli(['admin', 'login', '--username', 'admin', '--password-stdin'], {
    env: env(),
    input: `${server.adminPassword}\n`,
  });
  expect(login.code, login.stderr).toBe(EXIT.ok);
});
afterAll(async () => {
  await server?.stop();
});

describe('admin channels download', () => {
  it('writes the attachment and prints its metadata; a foreign channel is not_found', async () => {
    const cookie = await adminLogin(server);
    const host = await createHost(server, cookie, ['127.0.0.1'], 'cli-files-host');
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((n) => createAgent(server, cookie, host.host_id, `cli-${n}`)),
    );
    const form = new FormData();
    form.append('metadata', JSON.stringify({ to_agent_ids: [b!.agent.agent_id], body: 'report attached' }));
    form.append('file', new Blob([DATA], { type: 'text/tab-separated-values' }), 'rapport é.tsv');
    const sent = await fetch(`${server.url}/api/v1/messages/direct`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a!.key}` },
      body: form,
    });
    const result = ((await sent.json()) as { results: { channel_id: string; message_id: string }[] }).results[0]!;
    const other = await api(server, 'POST', '/messages/direct', {
      key: a!.key,
      body: { to_agent_ids: [c!.agent.agent_id], body: 'no file here' },
    });
    const history = await api(server, 'GET', `/admin/channels/${result.channel_id}/messages`, { cookie });
    const fileId = history.body.messages[0].attachment.file_id as string;

    const out = join(tempDir(), 'report.tsv');
    const run = await runCli(['admin', 'channels', 'download', result.channel_id, fileId, '--out', out], {
      env: env(),
    });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(readFileSync(out, 'utf8')).toBe(DATA);
    expect(run.json).toMatchObject({
      path: out,
      size: Buffer.byteLength(DATA),
      media_type: 'text/tab-separated-values',
      filename: 'rapport é.tsv',
      sha256: createHash('sha256').update(DATA).digest('hex'),
    });

    const foreign = await runCli(
      ['admin', 'channels', 'download', other.body.results[0].channel_id, fileId, '--out', `${out}.2`],
      { env: env() },
    );
    expect(foreign.code).toBe(EXIT.request);
    expect(foreign.stderr).toMatch(/not_found \(HTTP 404\)/);
  });
});
