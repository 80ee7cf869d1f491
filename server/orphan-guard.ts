/**
 * Miniflare's workerd child outlives a launcher that is killed outright (SIGKILL, OOM killer):
 * nothing in the launcher runs, and workerd has no "exit with parent" switch. An orphan would
 * keep the data directory's SQLite files open and could run Durable Object alarms against them
 * next to a restarted launcher. So a tiny shell watches a pipe from the launcher: when the pipe
 * closes without the word "disarm" (the launcher died), it terminates workerd.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Children of `parentPid` whose executable name is `name` (Linux /proc, else pgrep). */
export function childPids(parentPid: number, name: string): number[] {
  try {
    const pids: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue;
      }
      // "pid (comm) state ppid …"; comm may contain spaces and parentheses, so split at the last ")".
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (ppid === parentPid && comm === name) pids.push(Number(entry));
    }
    return pids;
  } catch {
    try {
      const out = execFileSync('pgrep', ['-P', String(parentPid), '-x', name], { encoding: 'utf8' });
      return out.split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }
}

const GUARD_SCRIPT = `
read word
[ "$word" = disarm ] && exit 0
for pid in "$@"; do kill -TERM "$pid" 2>/dev/null; done
sleep 3
for pid in "$@"; do kill -KILL "$pid" 2>/dev/null; done
`;

export interface OrphanGuard {
  /** Call after a clean shutdown, before exiting, so the guard leaves the (gone) PIDs alone. */
  disarm(): Promise<void>;
}

export function guardAgainstOrphans(pids: number[]): OrphanGuard {
  if (pids.length === 0 || process.platform === 'win32') return { disarm: async () => {} };
  // Detached: a Ctrl-C to the launcher's process group must not take the guard down with it.
  const guard = spawn('/bin/sh', ['-c', GUARD_SCRIPT, 'switchboard-orphan-guard', ...pids.map(String)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  guard.on('error', () => {});
  guard.stdin.on('error', () => {});
  guard.unref();
  return {
    disarm() {
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, 500);
        guard.stdin.end('disarm\n', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
