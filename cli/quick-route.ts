/**
 * Recognises the command lines the entry (cli/main.ts) runs without the full program: exactly
 * `--version` / `-V`; `mcp` with `--profile NAME` (before or after it, as commander reads a
 * global option) and `--allow-dir DIR` (after it); and a bare `inbox` with `--profile NAME`, each
 * also as `--flag=value`. Anything else, including a repeated or missing value, is the full
 * program's to parse and report.
 */
export type Route =
  | { kind: 'version' }
  | { kind: 'mcp'; profile?: string; allowDirs: string[] }
  | { kind: 'inbox'; profile?: string }
  | { kind: 'full' };

const FULL: Route = { kind: 'full' };
const COMMANDS = ['mcp', 'inbox'] as const;

export function quickRoute(args: readonly string[]): Route {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) return { kind: 'version' };
  let profile: string | undefined;
  const allowDirs: string[] = [];
  let command: (typeof COMMANDS)[number] | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (command === undefined && (COMMANDS as readonly string[]).includes(arg)) {
      command = arg as (typeof COMMANDS)[number];
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (flag !== '--profile' && !(flag === '--allow-dir' && command === 'mcp')) return FULL;
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '' || value.startsWith('-')) return FULL;
    if (flag === '--profile') {
      if (profile !== undefined) return FULL;
      profile = value;
    } else allowDirs.push(value);
  }
  const named = profile !== undefined ? { profile } : {};
  if (command === 'mcp') return { kind: 'mcp', ...named, allowDirs };
  if (command === 'inbox') return { kind: 'inbox', ...named };
  return FULL;
}
