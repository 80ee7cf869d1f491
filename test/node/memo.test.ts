import { describe, expect, it } from 'vitest';
import { Memo } from '../../core/lib/memo.js';

describe('Memo', () => {
  it('never holds more than its bound, however many inputs pass through', () => {
    const memo = new Memo<number>(3);
    for (let i = 0; i < 1000; i++) memo.set(`k${i}`, i);
    expect(memo.size).toBe(3);
    expect(memo.get('k999')).toBe(999);
    expect(memo.get('k996')).toBeUndefined();
  });

  it('keeps the entries in use: a hit moves to the back of the eviction order', () => {
    const memo = new Memo<string>(2);
    memo.set('a', 'A');
    memo.set('b', 'B');
    expect(memo.get('a')).toBe('A');
    memo.set('c', 'C');
    expect(memo.get('a')).toBe('A');
    expect(memo.get('b')).toBeUndefined();
    memo.set('a', 'A2');
    expect(memo.size).toBe(2);
    expect(memo.get('a')).toBe('A2');
  });
});
