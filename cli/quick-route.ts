/**
 * Recognises the command lines the entry (cli/main.ts) runs without the full program: exactly
 * `--version` / `-V`, and `mcp` with `--profile NAME` (before or after it, as commander reads a
 * global option) and `--allow-dir DIR` (after it), each also as `--flag=value`. Anything else,
 * including a repeated or missing value, is the full program's to parse and report.
 */
export type Route = { kind: 'version' } | { kind: 'mcp'; profile?: string; allowDirs: string[] } | { kind: 'full' };

const FULL: Route = { kind: 'full' };

export function quickRoute(args: readonly string[]): Route {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) return { kind: 'version' };
  let profile: string | undefined;
  const allowDirs: string[] = [];
  let mcp = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === 'mcp' && !mcp) {
      mcp = true;
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (flag !== '--profile' && !(flag === '--allow-dir' && mcp)) return FULL;
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '' || value.startsWith('-')) return FULL;
    if (flag === '--profile') {
      if (profile !== undefined) return FULL;
      profile = value;
    } else allowDirs.push(value);
  }
  if (!mcp) return FULL;
  return { kind: 'mcp', ...(profile !== undefined && { profile }), allowDirs };
}
