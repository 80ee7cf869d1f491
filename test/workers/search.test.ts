/**
 * Agent-side search (GET /search) and the channel's full-text index: inside a real ChannelDO's
 * SQLite (workerd's FTS5) and through the whole worker. Only the caller's own channels, with
 * history's rule (left groups and invitations excluded); deleted messages gone from the index by
 * every delete path; user text never FTS syntax; Unicode folding and CJK; keyset paging.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/durable-sqlite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dmChannelId } from '../../core/domain/ids.js';
import { SEARCH_BUDGET, searchPlan } from '../../core/domain/search.js';
import * as schema from '../../durable-objects/channel/schema.js';
import { SEARCH_INDEX_BATCH, SEARCH_INDEX_BATCH_BYTES } from '../../durable-objects/channel/sending.js';
import { ChannelStore } from '../../durable-objects/channel/store.js';
import searchMigration from '../../migrations/channel/0005_search_index.sql';
import batchMigration from '../../migrations/channel/0006_deferred_search_index.sql';
import { type Call, call } from './helpers.js';
import { channelCalls, sendOne, setLimits, type TestAgent, world } from './messaging-helpers.js';

const A = 'agt_alice';
const B = 'agt_bob';
const T0 = Date.parse('2026-11-30T12:00:00.000Z');

type Db = ReturnType<typeof drizzle<typeof schema>>;

async function withStore<T>(fn: (store: ChannelStore, db: Db, channelId: string) => T) {
  const channelId = await dmChannelId(A, B);
  const stub = env.CHANNEL.get(env.CHANNEL.newUniqueId());
  // The object's constructor has applied the migrations (FTS table and triggers included).
  return runInDurableObject(stub, (_instance, state) => {
    const db = drizzle(state.storage, { schema });
    return fn(new ChannelStore(db), db, channelId);
  });
}

function put(store: ChannelStore, channelId: string, body: string, now = T0, maxMessages = 1_000) {
  const outcome = store.sendDirect({
    channelId,
    senderId: A,
    recipientId: B,
    content: { body, attachment: null },
    maxMessages,
    now,
  });
  expect(outcome.status).toBe('sent');
  return outcome;
}

/** A channel's hits with the whole request budget, null as store.search answers it. */
function find(
  store: ChannelStore,
  who: string,
  q: string,
  before: { created_at: number; seq: number } | null,
  limit: number,
) {
  return store.search(who, q, before, limit, SEARCH_BUDGET)?.hits ?? null;
}

const bodies = (store: ChannelStore, q: string, who = B) =>
  find(store, who, q, null, 100)?.map((h) => h.snippet) ?? null;

describe('the channel full-text index (store)', () => {
  it('folds case, accents (precomposed or decomposed), İ and ß, and finds substrings', async () => {
    await withStore((store, _db, ch) => {
      put(store, ch, 'Deploy FAILED on host-7', T0);
      put(store, ch, 'Café crème', T0 + 1);
      put(store, ch, 'cafe\u0301 noir', T0 + 2);
      put(store, ch, 'İstanbul office', T0 + 3);
      put(store, ch, 'Die Straße ist gesperrt', T0 + 4);
      put(store, ch, 'ПРИВЕТ из Москвы', T0 + 5);
      expect(bodies(store, 'deploy failed')).toEqual(['Deploy FAILED on host-7']);
      expect(bodies(store, 'ploy')).toEqual(['Deploy FAILED on host-7']);
      expect(bodies(store, 'CAFE')).toEqual(['cafe\u0301 noir', 'Café crème']);
      expect(bodies(store, 'café')).toEqual(['cafe\u0301 noir', 'Café crème']);
      expect(bodies(store, 'istanbul')).toEqual(['İstanbul office']);
      expect(bodies(store, 'STRASSE')).toEqual(['Die Straße ist gesperrt']);
      expect(bodies(store, 'straße')).toEqual(['Die Straße ist gesperrt']);
      expect(bodies(store, 'привет')).toEqual(['ПРИВЕТ из Москвы']);
      // Every term must occur.
      expect(bodies(store, 'deploy crème')).toEqual([]);
      // Terms too short for trigrams fold the same way (checked in JavaScript, not by LIKE).
      expect(bodies(store, 'пр')).toEqual(['ПРИВЕТ из Москвы']);
      expect(bodies(store, 'İS')).toEqual(['Die Straße ist gesperrt', 'İstanbul office']);
      expect(bodies(store, 'ÉM')).toEqual(['Café crème']);
      expect(bodies(store, 'ß')).toEqual(['Die Straße ist gesperrt']);
    });
  });

  it('finds CJK text without spaces, also two-character words', async () => {
    await withStore((store, _db, ch) => {
      put(store, ch, '東京タワーに行きました', T0);
      put(store, ch, '大阪城を見ました', T0 + 1);
      put(store, ch, '서울에서 회의가 있습니다', T0 + 2);
      put(store, ch, '我们明天在北京开会', T0 + 3);
      expect(bodies(store, 'タワー')).toEqual(['東京タワーに行きました']);
      expect(bodies(store, '東京')).toEqual(['東京タワーに行きました']);
      expect(bodies(store, 'ました')).toEqual(['大阪城を見ました', '東京タワーに行きました']);
      expect(bodies(store, '회의')).toEqual(['서울에서 회의가 있습니다']);
      expect(bodies(store, '北京')).toEqual(['我们明天在北京开会']);
    });
  });

  it('treats user text as text: quotes, stars, NEAR, minus, parentheses, wildcards', async () => {
    await withStore((store, _db, ch) => {
      put(store, ch, 'say "hello" world', T0);
      put(store, ch, 'rm -rf * now', T0 + 1);
      put(store, ch, 'NEAR(a b) AND OR NOT', T0 + 2);
      put(store, ch, '100% done_ok', T0 + 3);
      put(store, ch, 'plain text', T0 + 4);
      const hostile = [
        '"',
        '""',
        '"hello',
        '*',
        'hel*',
        '-',
        '-rf',
        'NEAR',
        'NEAR(a b)',
        'AND',
        'OR NOT',
        '(',
        ')',
        '^',
        'body:',
        'a:b',
        '%',
        '_',
        '\\',
        '{x}',
        "'",
        '\u0301\u0301\u0301',
        '\u200b\u200b\u200b',
        '🎉🎉🎉',
        '\ufffd',
        '\u0000abc',
        'x" OR "y',
      ];
      for (const q of hostile) expect(() => find(store, B, q, null, 10), q).not.toThrow();
      expect(bodies(store, '"hello"')).toEqual(['say "hello" world']);
      expect(bodies(store, '-rf *')).toEqual(['rm -rf * now']);
      expect(bodies(store, 'NEAR(a')).toEqual(['NEAR(a b) AND OR NOT']);
      expect(bodies(store, '%')).toEqual(['100% done_ok']);
      expect(bodies(store, '_')).toEqual(['100% done_ok']);
      expect(bodies(store, 'x" OR "y')).toEqual([]);
      // `*` is not a prefix operator and `%` not a wildcard: nothing but the literal matches.
      expect(bodies(store, 'pla*')).toEqual([]);
      expect(bodies(store, 'p%t')).toEqual([]);
      expect(searchPlan('xyz" OR "abc')).toEqual({
        match: '"xyz" AND "yz""" AND """ab" AND "abc"',
        terms: ['xyz"', 'or', '"abc'],
      });
      expect(searchPlan('%_ İ')).toEqual({ match: null, terms: ['%_', 'i'] });
    });
  });

  it('forgets messages deleted by retention, a lowered limit and a purge, in their transaction', async () => {
    await withStore((store, db, ch) => {
      for (let i = 0; i < 5; i++) put(store, ch, `needle ${i}`, T0 + i, 3);
      expect(bodies(store, 'needle')).toEqual(['needle 4', 'needle 3', 'needle 2']);
      store.enforceLimits({ maxMessages: 1, maxFiles: 10, maxBodyCodePoints: 100, maxFileBytes: 1e9 }, T0 + 10);
      expect(bodies(store, 'needle')).toEqual(['needle 4']);
      put(store, ch, 'a long needle body', T0 + 11, 10);
      store.enforceLimits({ maxMessages: 10, maxFiles: 10, maxBodyCodePoints: 10, maxFileBytes: 1e9 }, T0 + 12);
      expect(bodies(store, 'needle')).toEqual(['needle 4']);
      // The index holds exactly the retained messages (FTS5's own consistency check agrees).
      expect(() => checkIndex(db)).not.toThrow();
      expect(store.countContaining('NEEDLE')).toBe(1);
    });
  });

  it("serves the administrators' content search with the same folding (ß, İ, decomposed accents)", async () => {
    await withStore((store, _db, ch) => {
      put(store, ch, 'Die Straße ist gesperrt', T0);
      put(store, ch, 'İstanbul office', T0 + 1);
      put(store, ch, 'cafe\u0301 noir', T0 + 2);
      put(store, ch, 'the deploy failed', T0 + 3);
      expect(store.countContaining('STRASSE')).toBe(1);
      expect(store.countContaining('istanbul')).toBe(1);
      expect(store.countContaining('Café')).toBe(1);
      // One phrase: the words in this order, not each anywhere.
      expect(store.countContaining('DEPLOY FAILED')).toBe(1);
      expect(store.countContaining('failed deploy')).toBe(0);
      for (const needle of ['"', 'a\u0000"b', '\u0000', 'NEAR(* -x', '\u0301\u0301\u0301']) {
        expect(() => store.countContaining(needle), needle).not.toThrow();
      }
      expect(store.adminSummary({ participants: [], q: 'straße' })).toMatchObject({ matching_messages: 1 });
    });
  });

  it('stays equal to the retained messages, and finds each body by any part of it (property)', async () => {
    const alphabet = [...'aAbBéÉzZß жЖ東京タワー"*-()_%05'];
    const body = fc
      .array(fc.constantFrom(...alphabet), { minLength: 3, maxLength: 24 })
      .map((cs) => cs.join(''))
      .filter((b) => b.trim().length > 0);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ body, cap: fc.integer({ min: 1, max: 6 }), search: fc.boolean() }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.nat(),
        async (sends, pick) =>
          withStore((store, db, ch) => {
            let now = T0;
            for (const s of sends) {
              // Identical consecutive bodies are duplicates (nothing stored): fine either way.
              store.sendDirect({
                channelId: ch,
                senderId: A,
                recipientId: B,
                content: { body: s.body, attachment: null },
                maxMessages: s.cap,
                now: now++,
              });
              // The waiting rows indexed at random points, so later purges meet indexed and unindexed rows.
              if (s.search) indexWaiting(db);
            }
            // Index and content are equal once the waiting batch is in; a search finds waiting rows too.
            expect(find(store, B, 'zzzzzz-not-there', null, 100)).toEqual([]);
            checkIndex(db);
            const retained = store.history(B, null, 100, 'desc')?.messages ?? [];
            const target = retained[pick % retained.length]!;
            const chars = [...target.body];
            const start = pick % chars.length;
            const slice = chars.slice(start, start + 1 + (pick % 5)).join('');
            // Asked in another case than stored: upper, lower or as is.
            const part = [slice.toUpperCase(), slice.toLowerCase(), slice][pick % 3]!.trim();
            if (part === '') return;
            const found = find(store, B, part, null, 100)?.map((h) => h.message_id) ?? [];
            expect(found, `${JSON.stringify(part)} in ${JSON.stringify(target.body)}`).toContain(target.message_id);
          }),
      ),
      { numRuns: 200 },
    );
  });

  it('is backfilled by its migration for channels that already hold messages', async () => {
    const stub = env.CHANNEL.get(env.CHANNEL.newUniqueId());
    const channelId = await dmChannelId(A, B);
    await runInDurableObject(stub, (_instance, state) => {
      const store = new ChannelStore(drizzle(state.storage, { schema }));
      // Back to the schema before the index: no FTS table, no triggers; then older messages.
      for (const trigger of ['messages_fts_delete', 'messages_fts_update']) {
        state.storage.sql.exec(`drop trigger ${trigger}`);
      }
      state.storage.sql.exec('drop table messages_fts');
      put(store, channelId, 'written before the index existed', T0);
      put(store, channelId, '以前のメッセージ', T0 + 1);
      // 0005 creates and fills the index; 0006 (its column already exists here) hands over to batches.
      for (const statement of searchMigration.split('--> statement-breakpoint')) state.storage.sql.exec(statement);
      for (const statement of batchMigration.split('--> statement-breakpoint').slice(1)) {
        state.storage.sql.exec(statement);
      }
      expect(state.storage.sql.exec('select indexed_seq from channel').one().indexed_seq).toBe(2);
      expect(bodies(store, 'BEFORE the index')).toEqual(['written before the index existed']);
      expect(bodies(store, 'メッセージ')).toEqual(['以前のメッセージ']);
      put(store, channelId, 'and one after it', T0 + 2);
      expect(bodies(store, 'after')).toEqual(['and one after it']);
    });
  });

  it('indexes in batches: a send once a batch waits, a search reads the rest directly, never a purged row', async () => {
    await withStore((store, db, ch) => {
      const indexed = () => Number(db.all<{ n: number }>(sql`select count(*) as n from messages_fts_docsize`)[0]?.n);
      const indexedSeq = () => Number(db.all<{ s: number }>(sql`select indexed_seq as s from channel`)[0]?.s);
      for (let i = 1; i < SEARCH_INDEX_BATCH; i++) put(store, ch, `batch message ${i}`, T0 + i);
      // Nothing indexed yet: the sends only stored their messages.
      expect([indexed(), indexedSeq()]).toEqual([0, 0]);
      put(store, ch, `batch message ${SEARCH_INDEX_BATCH}`, T0 + SEARCH_INDEX_BATCH);
      expect([indexed(), indexedSeq()]).toEqual([SEARCH_INDEX_BATCH, SEARCH_INDEX_BATCH]);
      db.run(sqlCheck);
      // Three more wait; a search reads them directly (it writes nothing), so it finds the newest at once.
      for (let i = 1; i <= 3; i++) put(store, ch, `late message ${i}`, T0 + 100 + i);
      expect(indexed()).toBe(SEARCH_INDEX_BATCH);
      expect(bodies(store, 'late message')).toEqual(['late message 3', 'late message 2', 'late message 1']);
      expect(store.countContaining('late message')).toBe(3);
      expect([indexed(), indexedSeq()]).toEqual([SEARCH_INDEX_BATCH, SEARCH_INDEX_BATCH]);
      // A cap of 1 purges indexed rows (the trigger deletes them from the index) and one that was
      // never indexed (skipped: an external-content 'delete' of an unindexed row corrupts the index).
      put(store, ch, 'never indexed', T0 + 200);
      put(store, ch, 'kept one', T0 + 201, 1);
      expect(store.countContaining('message')).toBe(0);
      expect(bodies(store, 'never indexed')).toEqual([]);
      expect(bodies(store, 'kept')).toEqual(['kept one']);
      checkIndex(db);
      expect(store.adminSummary({ participants: [], q: 'kept one' })).toMatchObject({ matching_messages: 1 });
    });
  });

  it('feeds the index a bounded number of bytes per send: long bodies a few at a time, none left behind', async () => {
    await withStore((store, db, ch) => {
      const LONG = 16_000;
      const long = (i: number) => `m${i} ${'abcdefghijklmnopqrstuvwxy '.repeat(LONG / 26 + 1)}`.slice(0, LONG);
      const indexed = () => Number(db.all<{ n: number }>(sql`select count(*) as n from messages_fts_docsize`)[0]?.n);
      const waiting = () =>
        Number(
          db.all<{ n: number }>(
            sql`select count(*) as n from messages where seq > (select indexed_seq from channel where id = 1)`,
          )[0]?.n,
        );
      const perSend = Math.floor(SEARCH_INDEX_BATCH_BYTES / LONG);
      const SENDS = SEARCH_INDEX_BATCH * 3;
      let most = 0;
      for (let i = 1; i <= SENDS; i++) {
        const before = indexed();
        put(store, ch, long(i), T0 + i);
        const fed = indexed() - before;
        most = Math.max(most, fed);
        // A send feeds at most the byte bound (at least one message when a batch waits), and fewer
        // than a batch keep waiting for the index, so a search's direct read stays within its bound.
        expect(fed).toBeLessThanOrEqual(perSend);
        expect(waiting()).toBeLessThan(SEARCH_INDEX_BATCH);
      }
      expect(most).toBe(perSend);
      // Each message is indexed or waiting, none twice, and the index is consistent.
      expect(indexed() + waiting()).toBe(SENDS);
      checkIndex(db);
      expect(indexed()).toBe(SENDS);
      // Short bodies still go a whole batch at a time.
      const start = indexed();
      let batches = 0;
      for (let i = 1; i <= SEARCH_INDEX_BATCH * 2; i++) {
        const before = indexed();
        put(store, ch, `short ${i}`, T0 + SENDS + i);
        if (indexed() - before > perSend) batches++;
      }
      expect(batches).toBeGreaterThanOrEqual(1);
      expect(indexed() - start).toBeGreaterThan(SEARCH_INDEX_BATCH);
    });
  });

  it('examines at most the budget per call, for a term in every row and for one that filters every hit', async () => {
    const LONG = 16_000;
    const long = (i: number) => `m${i} ${'abcdefghijklmnopqrstuvwxy '.repeat(LONG / 26 + 1)}`.slice(0, LONG);
    const cases = [
      // 100 bodies of 16,000 characters: the character bound ends every call (64 indexed, 36 not yet).
      { count: 100, body: long },
      // 1,100 short bodies: the row bound does.
      { count: 1_100, body: (i: number) => `qrst status ${i}` },
    ];
    for (const { count, body } of cases) {
      await withStore((store, _db, ch) => {
        for (let i = 0; i < count; i++) put(store, ch, body(i), T0 + i, 2_000);
        const size = body(0).length;
        for (const [q, matchesAll] of [
          ['qrst zz', false],
          ['qrst', true],
        ] as const) {
          let before: { created_at: number; seq: number } | null = null;
          let top = count;
          const seen: number[] = [];
          for (let calls = 0; ; calls++) {
            expect(calls).toBeLessThan(count);
            const page = store.search(B, q, before, count, SEARCH_BUDGET);
            if (!page) throw new Error('not a participant');
            const visited = top - (page.resume?.seq ?? 1) + 1;
            expect(visited).toBeGreaterThanOrEqual(1);
            expect(visited).toBeLessThanOrEqual(SEARCH_BUDGET.rows);
            // Every row but the last one visited fits in the character bound.
            expect((visited - 1) * size).toBeLessThan(SEARCH_BUDGET.chars);
            seen.push(...page.hits.map((h) => h.seq));
            if (!page.resume) break;
            // Nothing stops early but the budget: every row is a candidate of the index.
            expect(visited === SEARCH_BUDGET.rows || visited * size >= SEARCH_BUDGET.chars).toBe(true);
            before = page.resume;
            top = page.resume.seq - 1;
          }
          expect(seen).toEqual(matchesAll ? Array.from({ length: count }, (_, i) => count - i) : []);
        }
        // The administrators' content search is bounded the same way, and says it stopped early.
        const admin = store.contentSearch('qrst', SEARCH_BUDGET);
        expect(admin.complete).toBe(false);
        expect(admin.matching).toBeLessThanOrEqual(SEARCH_BUDGET.rows);
        expect((admin.matching - 1) * size).toBeLessThan(SEARCH_BUDGET.chars);
        expect(admin.newest?.seq).toBe(count);
        // A needle too short for the index: every body is read and decided, within the same bound.
        expect(store.contentSearch('zz', SEARCH_BUDGET)).toMatchObject({ matching: 0, complete: false });
        expect(store.contentSearch('qrst', { rows: count + 1, chars: Number.MAX_SAFE_INTEGER })).toMatchObject({
          matching: count,
          complete: true,
        });
      });
    }
  });

  it('pages past rows that fail a short term, keeping the order', async () => {
    await withStore((store, _db, ch) => {
      // 250 matches of the long term, of which only every 50th has the short one (Я).
      for (let i = 0; i < 250; i++) put(store, ch, `status report ${i}${i % 50 === 0 ? ' я' : ''}`, T0 + i);
      const hits = find(store, B, 'REPORT Я', null, 10) ?? [];
      expect(hits.map((h) => h.snippet)).toEqual([
        'status report 200 я',
        'status report 150 я',
        'status report 100 я',
        'status report 50 я',
        'status report 0 я',
      ]);
      const after = find(store, B, 'report я', { created_at: hits[1]!.created_at, seq: hits[1]!.seq }, 2) ?? [];
      expect(after.map((h) => h.snippet)).toEqual(['status report 100 я', 'status report 50 я']);
    });
  });

  it('pages newest first with an exclusive position', async () => {
    await withStore((store, _db, ch) => {
      for (let i = 0; i < 7; i++) put(store, ch, `page item ${i}`, T0 + Math.floor(i / 2));
      const first = find(store, B, 'item', null, 3) ?? [];
      expect(first.map((h) => h.snippet)).toEqual(['page item 6', 'page item 5', 'page item 4']);
      const last = first.at(-1)!;
      const next = find(store, B, 'item', { created_at: last.created_at, seq: last.seq }, 10) ?? [];
      expect(next.map((h) => h.snippet)).toEqual(['page item 3', 'page item 2', 'page item 1', 'page item 0']);
    });
  });

  it('answers null to anyone history would refuse, and cuts long bodies into snippets', async () => {
    await withStore((store, _db, ch) => {
      put(store, ch, `${'lorem ipsum '.repeat(40)}the key phrase ${'dolor sit '.repeat(40)}`, T0);
      expect(find(store, 'agt_carol', 'key', null, 10)).toBeNull();
      expect(store.history('agt_carol', null, 10, 'asc')).toBeNull();
      const [hit] = find(store, A, 'key phrase', null, 10) ?? [];
      expect(hit?.snippet).toContain('key phrase');
      expect(hit?.snippet.length).toBeLessThan(120);
      expect(hit?.snippet.startsWith('…')).toBe(true);
      const [short] = find(store, A, 'ke', null, 10) ?? [];
      expect(short?.snippet).toContain('key');
      expect(short?.snippet.length).toBeLessThan(120);
    });
  });
});

// FTS5's integrity check compares the index with the content table and fails on any difference.
const sqlCheck = sql`insert into messages_fts(messages_fts, rank) values ('integrity-check', 1)`;

/**
 * FTS5's own consistency check against the retained messages, once the rows still waiting for a
 * batch are indexed (as the next batch would: sending.ts indexPending), since a search reads them
 * without indexing them.
 */
function checkIndex(db: Db): void {
  indexWaiting(db);
  db.run(sqlCheck);
}

/** Indexes the rows waiting for a batch, with the statements of sending.ts indexPending. */
function indexWaiting(db: Db): void {
  db.run(sql`insert into messages_fts (rowid, body)
    select seq, body from messages where seq > (select indexed_seq from channel where id = 1) order by seq`);
  db.run(sql`update channel set indexed_seq = last_seq where id = 1 and indexed_seq < last_seq`);
}

const search = (agent: TestAgent, query: string) => call('GET', `/search?${query}`, { key: agent.key });

function ok(res: Call, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

describe('GET /search', () => {
  it("searches only the caller's channels: private, and groups it is an active member of", async () => {
    const { agents } = await world(5);
    const [a, b, c, d, e] = agents as [TestAgent, TestAgent, TestAgent, TestAgent, TestAgent];
    await sendOne(a, b, 'zebra in the private a-b channel');
    await sendOne(c, d, 'zebra between c and d only');
    const group = ok(
      await call('POST', '/groups', { key: a.key, body: { name: 'zoo', invitee_ids: [b.id, c.id, e.id] } }),
      201,
    ).group.group_id as string;
    ok(await call('POST', `/groups/${group}/join`, { key: b.key }));
    ok(await call('POST', `/groups/${group}/join`, { key: c.key }));
    ok(await call('POST', `/groups/${group}/leave`, { key: c.key }));
    ok(await call('POST', `/groups/${group}/messages`, { key: a.key, body: { body: 'zebra in the group' } }));

    const ofA = ok(await search(a, 'q=ZEBRA'));
    expect(ofA.hits.map((h: { snippet: string }) => h.snippet).sort()).toEqual([
      'zebra in the group',
      'zebra in the private a-b channel',
    ]);
    expect(ofA.next_cursor).toBeNull();
    const groupHit = ofA.hits.find((h: { kind: string }) => h.kind === 'group');
    expect(groupHit).toMatchObject({ channel_id: group, sender_id: a.id, seq: 1 });
    expect(groupHit.message_id).toMatch(/^msg_/);
    expect(Date.parse(groupHit.created_at)).toBeGreaterThan(0);
    // c left the group: its own private channel only; e is only invited; d sees its own.
    expect(ok(await search(c, 'q=zebra')).hits.map((h: { snippet: string }) => h.snippet)).toEqual([
      'zebra between c and d only',
    ]);
    expect(ok(await search(e, 'q=zebra')).hits).toEqual([]);
    expect(ok(await search(d, 'q=zebra')).hits).toHaveLength(1);
    // Filters: one kind, one channel; a channel the caller is not in reaches no channel object.
    expect(ok(await search(a, 'q=zebra&kind=group')).hits).toHaveLength(1);
    expect(ok(await search(b, `q=zebra&channel_id=${group}`)).hits).toHaveLength(1);
    const foreign = ok(await search(c, 'q=zebra')).hits[0].channel_id as string;
    const refused = await search(a, `q=zebra&channel_id=${foreign}`);
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');
    expect(channelCalls(refused)).toBe(0);
    // e (invited, never joined) asks its group by ID: not one of its channels.
    expect((await search(e, `q=zebra&channel_id=${group}`)).status).toBe(404);
    // The number of channels asked is the number the caller is in (a: one private, one group).
    expect(channelCalls(await search(a, 'q=zebra'))).toBe(2);
  });

  it('pages across channels with a cursor, newest first, each hit once', async () => {
    const { agents } = await world(4);
    const [a, b, c, d] = agents as [TestAgent, TestAgent, TestAgent, TestAgent];
    const sent: string[] = [];
    for (let i = 0; i < 9; i++) {
      const to = [b, c, d][i % 3]!;
      sent.push((await sendOne(a, to, `report number ${i}`)).message_id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = ok(await search(a, `q=report&limit=2${cursor ? `&cursor=${cursor}` : ''}`));
      expect(page.hits.length).toBeLessThanOrEqual(2);
      seen.push(...page.hits.map((h: { message_id: string }) => h.message_id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual([...sent].reverse());
    const bad = await search(a, 'q=report&cursor=WyJ4Il0');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', field: 'cursor' });
  });

  it('refuses an empty, blank or too long query with validation_failed', async () => {
    const { agents } = await world(1);
    const [a] = agents as [TestAgent];
    for (const query of ['', 'q=', 'q=%20%20', `q=${'x'.repeat(257)}`]) {
      const res = await search(a, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', field: 'q' });
    }
    expect(ok(await search(a, `q=${'x'.repeat(256)}`)).hits).toEqual([]);
  });

  it('never answers FTS syntax errors and never returns deleted messages', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    await sendOne(a, b, 'first "quoted" secret');
    for (const q of ['"', '"quoted', 'NEAR(x y)', '-secret', 'secret*', 'OR', '(', '%', '_', '\\', '"\u0000quoted"']) {
      const res = await search(b, `q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
    }
    await setLimits(cookie, { max_messages_per_channel: 1 });
    await sendOne(a, b, 'second message');
    expect(ok(await search(b, 'q=secret')).hits).toEqual([]);
    expect(ok(await search(b, 'q=second')).hits).toHaveLength(1);
  });

  it('finds nothing of a dissolved group', async () => {
    const { cookie, agents } = await world(2);
    const [a, b] = agents as [TestAgent, TestAgent];
    const group = ok(await call('POST', '/groups', { key: a.key, body: { name: 'gone', invitee_ids: [b.id] } }), 201)
      .group.group_id as string;
    ok(await call('POST', `/groups/${group}/join`, { key: b.key }));
    ok(await call('POST', `/groups/${group}/messages`, { key: a.key, body: { body: 'ephemeral words' } }));
    expect(ok(await search(b, 'q=ephemeral')).hits).toHaveLength(1);
    ok(await call('DELETE', `/admin/groups/${group}`, { cookie }));
    expect(ok(await search(b, 'q=ephemeral')).hits).toEqual([]);
    expect(ok(await search(a, 'q=ephemeral')).hits).toEqual([]);
  });
});
