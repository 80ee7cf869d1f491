/** The pure messaging modules: identifiers, content checks and the cross-channel claim plan. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/contract/errors.js';
import { type ClaimCandidate, planClaims } from '../../core/domain/claim-plan.js';
import { codePointLength, collapseTargets, validateContent } from '../../core/domain/content.js';
import { channelOfMessageId, dmChannelId, newMessageId } from '../../core/domain/ids.js';

describe('identifiers', () => {
  it('derives one private channel per unordered pair', async () => {
    const ab = await dmChannelId('agt_a', 'agt_b');
    expect(ab).toBe(await dmChannelId('agt_b', 'agt_a'));
    expect(ab).toMatch(/^dm_[A-Za-z0-9_-]{22}$/);
    expect(ab).not.toBe(await dmChannelId('agt_a', 'agt_c'));
  });

  it('answers the digest of the pair, the same from its memo and after the memo let it go', async () => {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('agt_m1\nagt_m2')));
    const expected = `dm_${btoa(String.fromCharCode(...digest))
      .replaceAll('+', '-')
      .replaceAll('/', '_')
      .slice(0, 22)}`;
    expect(await dmChannelId('agt_m2', 'agt_m1')).toBe(expected);
    expect(await dmChannelId('agt_m1', 'agt_m2')).toBe(expected);
    // More pairs than the memo holds: the first is computed again, to the same ID.
    for (let i = 0; i < 5_000; i++) await dmChannelId('agt_m1', `agt_x${i}`);
    expect(await dmChannelId('agt_m2', 'agt_m1')).toBe(expected);
  });

  it('routes every message ID back to its channel, and nothing else', async () => {
    const dm = await dmChannelId('agt_a', 'agt_b');
    for (const channel of [dm, 'grp_0123456789abcdefghijkl', 'grp_x', 'grp_a_b-c']) {
      const id = newMessageId(channel);
      expect(id).toMatch(/^msg_[A-Za-z0-9_-]{1,64}$/);
      expect(channelOfMessageId(id)).toBe(channel);
    }
    for (const junk of [
      'msg_',
      'msg_x',
      'msg_dshort0123456789abcdef',
      'hello',
      'msg_q0123456789abcdef0123456789',
      'msg_g!!!!0123456789abcdef',
    ]) {
      expect(channelOfMessageId(junk)).toBeNull();
    }
  });
});

describe('content checks', () => {
  it('counts code points, not UTF-16 units or graphemes', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀')).toBe(1);
    expect(codePointLength('👩‍👩‍👧')).toBe(5); // three people joined by two zero-width joiners
    expect(codePointLength('e\u0301')).toBe(2);
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => codePointLength(s) === [...s].length));
  });

  it('refuses empty, ill-formed and overlong bodies with the limit', () => {
    const codeOf = (f: () => void) => {
      try {
        f();
        return null;
      } catch (error) {
        return error instanceof ApiError ? [error.code, error.details.limit] : error;
      }
    };
    expect(codeOf(() => validateContent('', false, 10))).toEqual(['empty_message', undefined]);
    expect(codeOf(() => validateContent('', true, 10))).toBeNull(); // a file-only message
    expect(codeOf(() => validateContent('a\ud800', false, 10))).toEqual(['invalid_unicode', undefined]);
    expect(codeOf(() => validateContent('😀😀😀', false, 3))).toBeNull();
    expect(codeOf(() => validateContent('😀😀😀😀', false, 3))).toEqual(['text_too_long', 3]);
  });

  it('collapses repeated targets to their first occurrence', () => {
    expect(collapseTargets(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });
});

describe('cross-channel claim plan', () => {
  const c = (channel_id: string, seq: number, created_at: number): ClaimCandidate => ({ channel_id, seq, created_at });

  it('takes the best candidates overall, ties broken by channel then seq', () => {
    const pool = [c('dm_b', 1, 10), c('dm_a', 7, 10), c('dm_a', 8, 12), c('dm_c', 3, 5), c('dm_b', 2, 20)];
    expect([...planClaims(pool, 3, 'oldest')]).toEqual([
      ['dm_c', 1],
      ['dm_a', 1],
      ['dm_b', 1],
    ]);
    expect([...planClaims(pool, 2, 'newest')]).toEqual([
      ['dm_b', 1],
      ['dm_a', 1],
    ]);
    expect([...planClaims(pool, 10, 'oldest')].reduce((n, [, k]) => n + k, 0)).toBe(5);
  });

  it('never plans more than the limit nor more than a channel offered', () => {
    const candidate = fc.record({
      channel_id: fc.constantFrom('dm_a', 'dm_b', 'dm_c'),
      seq: fc.nat(),
      created_at: fc.nat({ max: 50 }),
    });
    fc.assert(
      fc.property(
        fc.array(candidate),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom('oldest' as const, 'newest' as const),
        (pool, limit, order) => {
          const plan = planClaims(pool, limit, order);
          const total = [...plan.values()].reduce((n, k) => n + k, 0);
          expect(total).toBe(Math.min(limit, pool.length));
          for (const [channel, k] of plan)
            expect(k).toBeLessThanOrEqual(pool.filter((p) => p.channel_id === channel).length);
        },
      ),
    );
  });
});
