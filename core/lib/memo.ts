/**
 * A bounded memo for pure functions of a string on the hot path (an isolate lives for many
 * requests). Insertion order is the eviction order: when full, the oldest entry goes, so a caller
 * that can vary the input freely costs at most `max` entries and never grows the isolate's memory.
 * A hit is moved to the back, so the entries in use stay while one-off inputs pass through.
 */
export class Memo<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
