/**
 * What the server keeps on disk, for "nothing was stored" checks: every file under
 * `<data>/state` (Durable Object SQLite files, R2 metadata and blobs) with its size.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export type DiskSnapshot = Map<string, number>;

export function diskSnapshot(dataDir: string): DiskSnapshot {
  const root = join(dataDir, 'state');
  const out: DiskSnapshot = new Map();
  const walk = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // removed while walking
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        try {
          out.set(relative(root, path).split(sep).join('/'), statSync(path).size);
        } catch {
          // removed while walking
        }
      }
    }
  };
  walk(root);
  return out;
}

/** SQLite's journal and shared-memory files come and go with ordinary reads; they store nothing. */
const TRANSIENT = /-(wal|shm|journal)$/;

/**
 * Files that appeared or disappeared between two snapshots, and R2 blobs whose size changed.
 * Durable Object databases that already existed may change size (sign-in bookkeeping, last access
 * times): what a refused request must not do is create an object, a database or a blob.
 */
export function storageChanges(before: DiskSnapshot, after: DiskSnapshot): string[] {
  const changes: string[] = [];
  for (const [path, size] of after) {
    if (TRANSIENT.test(path)) continue;
    if (!before.has(path)) changes.push(`new ${path} (${size} bytes)`);
    else if (path.includes('/blobs/') && before.get(path) !== size) changes.push(`resized ${path}`);
  }
  for (const path of before.keys()) {
    if (!TRANSIENT.test(path) && !after.has(path)) changes.push(`removed ${path}`);
  }
  return changes;
}

export function totalBytes(snapshot: DiskSnapshot): number {
  let total = 0;
  for (const size of snapshot.values()) total += size;
  return total;
}
