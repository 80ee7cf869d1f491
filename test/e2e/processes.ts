/**
 * The server's processes as Linux shows them in /proc: the launcher's tree (workerd, the orphan
 * guard) and their resident memory, for tests that look at what the processes really hold.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  comm: string;
}

/** `root` and all its descendants, from the ppid field of /proc/<pid>/stat. */
export function processTree(root: number): ProcessEntry[] {
  const parents = new Map<number, ProcessEntry & { ppid: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may contain spaces and parentheses.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      parents.set(Number(entry), { pid: Number(entry), comm, ppid });
    } catch {
      // The process ended while listed.
    }
  }
  const tree: ProcessEntry[] = [{ pid: root, comm: parents.get(root)?.comm ?? '' }];
  for (let i = 0; i < tree.length; i++) {
    for (const p of parents.values()) {
      if (p.ppid === tree[i]?.pid && !tree.some((t) => t.pid === p.pid)) tree.push({ pid: p.pid, comm: p.comm });
    }
  }
  return tree;
}

/** The summed resident memory (VmRSS) of `pids` in MB; a process that is gone holds nothing. */
export function rssMb(pids: readonly number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += match ? Number(match[1]) : 0;
    } catch {
      // The process is gone (the server stopped).
    }
  }
  return kb / 1024;
}
