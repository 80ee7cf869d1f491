/**
 * The pure parts of the administrators' channel view: the content search (its SQL part run in the
 * real SQLite of a Durable Object), the identity filters, and the ordered bounded scan.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentCheck, matchesIdentity, parseParticipants } from '../../core/domain/admin-channels.js';
import { scanCatalogPage, scanInOrder } from '../../worker/lib/ordered-scan.js';

/**
 * Whether `haystack` contains `needle` by the channel's content search (contentCheck). For text
 * SQLite's lower() folds exactly (ASCII and caseless scripts) the answer must also be SQLite's
 * `instr(lower(?), lower(?))`, run in a Durable Object's SQLite (the engine the channels use).
 */
async function contains(pairs: readonly (readonly [string, string])[]): Promise<boolean[]> {
  const stub = env.RETENTION.get(env.RETENTION.idFromName('search-check'));
  return runInDurableObject(stub, (_instance, state) =>
    pairs.map(([haystack, needle]) => {
      const answer = contentCheck(needle)(haystack);
      if ([...(needle + haystack)].every((ch) => ch.charCodeAt(0) < 0x80)) {
        const sqlHit =
          state.storage.sql.exec<{ m: number }>('select instr(lower(?), lower(?)) > 0 as m', haystack, needle).one()
            .m === 1;
        expect(answer, `${haystack} / ${needle}`).toBe(sqlHit);
      }
      return answer;
    }),
  );
}

describe('content search (contentCheck)', () => {
  it('folds ASCII letters as SQLite does for ASCII and caseless needles, and full Unicode case otherwise', () => {
    expect(contentCheck('Deploy FAILED')('deploy failed now')).toBe(true);
    expect(contentCheck('数据库已满')('告警：数据库已满')).toBe(true);
    expect(contentCheck('Ошибка: disk full')('ОШИБКА: DISK FULL')).toBe(true);
    expect(contentCheck('Привет')('привет')).toBe(true);
    expect(contentCheck('a'.repeat(200))('a'.repeat(199))).toBe(false);
  });

  it('finds text regardless of case in Latin, Cyrillic and Greek, and nothing else', async () => {
    const cases: [string, string, boolean][] = [
      ['Deploy FAILED on host 7', 'failed on', true],
      ['deploy failed', 'DEPLOY', true],
      ['Привет, МИР', 'привет, мир', true],
      ['ΑΘΗΝΑ', 'αθηνα', true],
      ['Crème brûlée', 'CRÈME BRÛLÉE', true],
      ['Crème brûlée', 'CREME', false],
      ['数据库已满', '已满', true],
      ['数据库已满', '已空', false],
      ['deploy failed', 'deploy  failed', false],
      ['', 'a', false],
    ];
    expect(await contains(cases.map(([h, n]) => [h, n] as const))).toEqual(cases.map(([, , m]) => m));
  });

  it('takes wildcard characters literally, at any length (LIKE and GLOB syntax alike)', async () => {
    const long = `${'x'.repeat(120)}%_*?`;
    const cases: [string, string, boolean][] = [
      ['progress 50% done', '50%', true],
      ['progress 500 done', '50%', false],
      ['a_b', 'a_b', true],
      ['axb', 'a_b', false],
      ['what?', 't?', true],
      ['that', 't?', false],
      ['a*b', 'a*b', true],
      ['a--b', 'a*b', false],
      ['list[0]', 't[0]', true],
      ['list0', 't[0]', false],
      ['C:\\temp', 'c:\\TEMP', true],
      [`say ${long.toUpperCase()} now`, long, true],
      [`say ${long.slice(1)} now`, long, false],
    ];
    expect(await contains(cases.map(([h, n]) => [h, n] as const))).toEqual(cases.map(([, , m]) => m));
  });

  it('agrees with a case-insensitive includes() on random text', async () => {
    // Letters whose lower case is one code point both ways (no final sigma, no dotted I), in
    // scripts SQLite folds and scripts it does not, with wildcard and escape characters.
    const alphabet = [...'aAbBzZяЯёЁдДαΑβΒéÉ01 *?[]%_\\^-!'];
    const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }).map((a) => a.join(''));
    const samples = fc.sample(
      fc.tuple(
        text,
        text.filter((t) => t.length > 0 && t.length <= 4),
      ),
      400,
    );
    const answers = await contains(samples);
    samples.forEach(([haystack, needle], i) => {
      expect(answers[i], `${JSON.stringify(haystack)} contains ${JSON.stringify(needle)}`).toBe(
        haystack.toLowerCase().includes(needle.toLowerCase()),
      );
    });
  });
});

describe('identity filters', () => {
  const group = [
    { agent_id: 'agt_owner', role: 'owner' as const },
    { agent_id: 'agt_m1', role: 'member' as const },
    { agent_id: 'agt_m2', role: 'member' as const },
  ];

  it('requires every listed participant, in any order', () => {
    expect(matchesIdentity('group', group, { participants: [] })).toBe(true);
    expect(matchesIdentity('group', group, { participants: ['agt_m2', 'agt_owner'] })).toBe(true);
    expect(matchesIdentity('group', group, { participants: ['agt_m2', 'agt_other'] })).toBe(false);
  });

  it('matches an owner only in groups, and only the owner', () => {
    expect(matchesIdentity('group', group, { participants: [], owner: 'agt_owner' })).toBe(true);
    expect(matchesIdentity('group', group, { participants: [], owner: 'agt_m1' })).toBe(false);
    const dm = [
      { agent_id: 'agt_a', role: 'member' as const },
      { agent_id: 'agt_b', role: 'member' as const },
    ];
    expect(matchesIdentity('private', dm, { participants: ['agt_a'], owner: 'agt_a' })).toBe(false);
  });

  it('reads the comma-separated participant list, collapsing repeats', () => {
    expect(parseParticipants(undefined)).toEqual([]);
    expect(parseParticipants('agt_a,agt_b,agt_a')).toEqual(['agt_a', 'agt_b']);
  });
});

describe('scanInOrder', () => {
  const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

  it('hands answers over in order whatever order they arrive in, with at most N calls in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    const items = Array.from({ length: 40 }, (_, i) => i);
    await scanInOrder(
      items,
      5,
      async (i) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleep((i * 7) % 5);
        inFlight--;
        return i * 10;
      },
      (answer, item) => {
        expect(answer).toBe(item * 10);
        seen.push(item);
        return true;
      },
    );
    expect(seen).toEqual(items);
    expect(peak).toBe(5);
  });

  it('stops exactly where accept says, starting no further calls', async () => {
    const asked: number[] = [];
    const accepted: number[] = [];
    const { consumed } = await scanInOrder(
      Array.from({ length: 100 }, (_, i) => i),
      4,
      async (i) => {
        asked.push(i);
        await sleep(1);
        return i;
      },
      (i) => {
        accepted.push(i);
        return i < 9;
      },
    );
    expect(consumed).toBe(10);
    expect(accepted).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(Math.max(...asked)).toBeLessThan(10 + 4);
  });

  it('fails when a needed call fails, not when a call past the stop does', async () => {
    await expect(
      scanInOrder(
        [1, 2, 3],
        2,
        async (i) => {
          if (i === 2) throw new Error('channel down');
          return i;
        },
        () => true,
      ),
    ).rejects.toThrow('channel down');
    const { consumed } = await scanInOrder(
      [1, 2, 3],
      3,
      async (i) => {
        if (i === 3) {
          await sleep(5);
          throw new Error('too late to matter');
        }
        return i;
      },
      (i) => i < 2,
    );
    expect(consumed).toBe(2);
  });

  it('answers at once for nothing to scan', async () => {
    expect(
      await scanInOrder(
        [],
        16,
        async () => 1,
        () => true,
      ),
    ).toEqual({ consumed: 0 });
  });
});

describe('scanCatalogPage', () => {
  const entries = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ n: from + i }));
  const even = async (e: { n: number }) => (e.n % 2 === 0 ? e.n : null);
  const kept = (answer: number | null) => answer !== null;

  it('stops at the limit and continues after the last entry examined', async () => {
    const page = await scanCatalogPage({ entries: entries(1, 20), more: true }, 3, 4, even, kept);
    expect(page).toEqual({ found: [2, 4, 6], next: 6, scanned: 6 });
  });

  it('examines the whole catalog page when matches are rare, and says where to go on', async () => {
    const rare = async (e: { n: number }) => (e.n === 17 ? e.n : null);
    expect(await scanCatalogPage({ entries: entries(1, 20), more: true }, 5, 4, rare, kept)).toEqual({
      found: [17],
      next: 20,
      scanned: 20,
    });
    expect(await scanCatalogPage({ entries: entries(1, 20), more: false }, 5, 4, rare, kept)).toEqual({
      found: [17],
      next: null,
      scanned: 20,
    });
  });

  it('ends the scan when the limit is reached on the catalog’s very last entry', async () => {
    expect(await scanCatalogPage({ entries: entries(1, 4), more: false }, 2, 4, even, kept)).toEqual({
      found: [2, 4],
      next: null,
      scanned: 4,
    });
    expect(await scanCatalogPage({ entries: [], more: false }, 2, 4, even, kept)).toEqual({
      found: [],
      next: null,
      scanned: 0,
    });
  });
});
