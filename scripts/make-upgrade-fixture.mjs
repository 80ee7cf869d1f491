// Makes the upgrade fixture: a data directory written by a tagged release, which
// test/e2e/upgrade.test.ts opens with the current code (docs/operations.md, "Upgrades").
//
//   node scripts/make-upgrade-fixture.mjs v0.1.0
//
// Checks REF out into a temporary git worktree (sharing this tree's node_modules), builds it,
// starts its server on a fresh data directory, writes a little of everything through the API
// (hosts, agents and their keys, direct messages with and without a file, a group with a file,
// settings, deliveries unread, leased, acked and parked), stops it cleanly and writes
// test/fixtures/upgrade/<version>/data.tar.gz (the data directory without its run/ folder and
// SQLite's -shm index files) and fixture.json (what was written, which the test checks).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import * as tar from 'tar';

const ref = process.argv[2];
if (!ref) {
  process.stderr.write('usage: node scripts/make-upgrade-fixture.mjs REF   (a release tag, e.g. v0.1.0)\n');
  process.exit(2);
}
const ROOT = resolve(import.meta.dirname, '..');
const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
const version = JSON.parse(git('show', `${commit}:package.json`)).version;
const PASSWORD = 'upgrade-fixture-password';
const log = (text) => process.stdout.write(`${text}\n`);

const work = mkdtempSync(join(tmpdir(), 'switchboard-fixture-'));
const tree = join(work, 'tree');
const data = join(work, 'data');
let child;
try {
  log(`${ref} = ${commit} (version ${version}): worktree in ${tree}`);
  git('worktree', 'add', '--detach', tree, commit);
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  execFileSync('npm', ['run', 'build'], { cwd: tree, stdio: 'inherit' });

  child = spawn(process.execPath, [join(tree, 'dist/node/switchboard.mjs'), 'serve', '--port', '0', '--data', data], {
    env: { ...process.env, SWITCHBOARD_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const ready = /Switchboard listening on (http:\/\/\S+)/.exec(out);
      if (ready) done(ready[1]);
    });
    child.once('exit', (code) => fail(new Error(`the server exited (${code}) before it was ready`)));
  });
  log(`server at ${base}`);

  let cookie = '';
  const call = async (method, path, { key, body, form, expect = [200, 201] } = {}) => {
    const headers = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (cookie) headers.cookie = cookie;
    headers.origin = base;
    let payload;
    if (form) payload = form;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(`${base}/api/v1${path}`, { method, headers, body: payload });
    const text = await res.text();
    if (!expect.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    const setCookie = res.headers.get('set-cookie');
    if (setCookie?.startsWith('switchboard_session=')) cookie = setCookie.split(';')[0];
    return text ? JSON.parse(text) : null;
  };
  const withFile = (metadata, name, content) => {
    const form = new FormData();
    form.append('metadata', JSON.stringify(metadata));
    form.append('file', new Blob([content], { type: 'text/plain' }), name);
    return form;
  };

  await call('POST', '/admin/login', { body: { username: 'admin', password: PASSWORD } });
  // One claim at a time counts as a delivery; a second unACKed end parks it.
  const settings = { max_deliveries: 2, claim_seconds: 3600, max_messages_per_channel: 900 };
  await call('PATCH', '/admin/settings', { body: settings });
  const hosts = [];
  for (const [name, addresses] of [
    ['fixture-loopback', ['127.0.0.1', '::1']],
    ['fixture-lan', ['127.0.0.2', '192.0.2.10']],
  ]) {
    hosts.push((await call('POST', '/admin/hosts', { body: { name, addresses, os: 'linux' } })).host);
  }
  const agents = {};
  for (const name of ['alice', 'bob', 'carol']) {
    const created = await call('POST', '/admin/agents', { body: { name, host_id: hosts[0].host_id } });
    agents[name] = { id: created.agent.agent_id, key: created.api_key };
  }
  const dave = await call('POST', '/admin/agents', { body: { name: 'dave', host_id: hosts[1].host_id } });
  agents.dave = { id: dave.agent.agent_id, key: dave.api_key };
  const { alice, bob, carol } = agents;

  const messages = [];
  const direct = async (from, to, body, file) => {
    const metadata = { to_agent_ids: [agents[to].id], body };
    const answer = file
      ? await call('POST', '/messages/direct', { key: agents[from].key, form: withFile(metadata, 'note.txt', file) })
      : await call('POST', '/messages/direct', { key: agents[from].key, body: metadata });
    const result = answer.results[0];
    if (result.status !== 'sent') throw new Error(`send: ${JSON.stringify(result)}`);
    messages.push({
      message_id: result.message_id,
      channel_id: result.channel_id,
      from,
      to: [to],
      body,
      file: file ?? null,
    });
    return result.message_id;
  };
  const ackedId = await direct('alice', 'bob', 'to be acked');
  const leasedId = await direct('alice', 'bob', 'to be leased');
  const parkedId = await direct('alice', 'bob', 'to be parked');
  const unreadId = await direct('alice', 'bob', 'left unread', 'the file of an unread message\n');
  await direct('carol', 'alice', 'a reply-less note');

  const group = (
    await call('POST', '/groups', { key: alice.key, body: { name: 'fixture-group', invitee_ids: [bob.id, carol.id] } })
  ).group;
  await call('POST', `/groups/${group.group_id}/join`, { key: bob.key });
  await call('POST', `/groups/${group.group_id}/join`, { key: carol.key });
  const groupFile = 'the group plan\n';
  const sentToGroup = await call('POST', `/groups/${group.group_id}/messages`, {
    key: alice.key,
    form: withFile({ body: 'the plan for everyone' }, 'plan.txt', groupFile),
  });
  messages.push({
    message_id: sentToGroup.message_id,
    channel_id: group.group_id,
    from: 'alice',
    to: ['bob', 'carol'],
    body: 'the plan for everyone',
    file: groupFile,
  });

  // bob: one ACKed, one parked (claimed and released twice), one leased (claimed, its lease
  // shortened to a second), and the rest (the file message, the group message) unread.
  const claim = async (who, limit, extra = {}) =>
    (await call('POST', '/inbox/claim', { key: agents[who].key, body: { limit, ...extra } })).claims;
  const release = (who, c) =>
    call('POST', '/inbox/release', {
      key: agents[who].key,
      body: { items: [{ message_id: c.message.message_id, claim_token: c.claim_token }] },
    });
  const ack = (who, c) =>
    call('POST', '/inbox/ack', {
      key: agents[who].key,
      body: { acks: [{ message_id: c.message.message_id, claim_token: c.claim_token }] },
    });
  const first = await claim('bob', 1);
  if (first[0]?.message.message_id !== ackedId) throw new Error(`claim order: ${JSON.stringify(first)}`);
  await ack('bob', first[0]);
  const leased = await claim('bob', 1);
  if (leased[0]?.message.message_id !== leasedId) throw new Error(`claim order: ${JSON.stringify(leased)}`);
  // Its lease ends a second from now (extend sets now + seconds), so whenever the fixture is
  // opened the claim is on record (delivery_count 1) and expired, the same at any date.
  await call('POST', '/inbox/extend', {
    key: bob.key,
    body: { items: [{ message_id: leasedId, claim_token: leased[0].claim_token }], seconds: 1 },
  });
  for (let i = 0; i < 2; i++) {
    const toPark = await claim('bob', 1);
    if (toPark[0]?.message.message_id !== parkedId) throw new Error(`claim order: ${JSON.stringify(toPark)}`);
    await release('bob', toPark[0]);
  }
  const inbox = await call('GET', '/inbox', { key: bob.key });
  if (inbox.parked !== 1) throw new Error(`bob's inbox: ${JSON.stringify(inbox)}`);

  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  child = undefined;

  rmSync(join(data, 'run'), { recursive: true, force: true });
  const files = [];
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (!entry.name.endsWith('-shm')) files.push(relative(data, path));
    }
  };
  visit(data);
  const outDir = join(ROOT, 'test/fixtures/upgrade', version);
  mkdirSync(outDir, { recursive: true });
  await tar.create({ gzip: { level: 9 }, file: join(outDir, 'data.tar.gz'), cwd: data, portable: true }, files.sort());
  const journals = {};
  for (const name of git('ls-tree', '--name-only', `${commit}:migrations`).split('\n')) {
    const journal = JSON.parse(git('show', `${commit}:migrations/${name}/meta/_journal.json`));
    journals[name] = journal.entries.map((e) => e.tag);
  }
  const fixture = {
    ref,
    commit,
    version,
    admin: { username: 'admin', password: PASSWORD },
    settings,
    hosts,
    agents,
    group: { group_id: group.group_id, name: 'fixture-group', owner: 'alice', members: ['alice', 'bob', 'carol'] },
    messages,
    deliveries: {
      agent: 'bob',
      acked: ackedId,
      leased: leasedId,
      parked: parkedId,
      unread: [unreadId, sentToGroup.message_id],
    },
    migrations: journals,
  };
  writeFileSync(join(outDir, 'fixture.json'), `${JSON.stringify(fixture, null, 2)}\n`);
  // The repository's formatter owns the layout of committed files (`npm run check` runs it).
  execFileSync('npx', ['biome', 'format', '--write', join(outDir, 'fixture.json')], { cwd: ROOT, stdio: 'ignore' });
  const size = readFileSync(join(outDir, 'data.tar.gz')).length;
  log(
    `wrote ${relative(ROOT, outDir)}: data.tar.gz ${size} bytes, sha256 ${createHash('sha256')
      .update(readFileSync(join(outDir, 'data.tar.gz')))
      .digest('hex')
      .slice(0, 12)}…`,
  );
} finally {
  if (child) child.kill('SIGKILL');
  try {
    git('worktree', 'remove', '--force', tree);
  } catch {
    // not created
  }
  rmSync(work, { recursive: true, force: true });
}
