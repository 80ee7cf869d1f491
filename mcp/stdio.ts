/** `switchboard mcp`: the MCP server over stdio. stdout carries the protocol only; logs go to stderr. */
import type { Env } from '../client/config.js';
import { resolveProfile } from '../client/config.js';
import { describePolicy, filePolicy } from './file-access.js';
import { buildServer } from './server.js';

export async function runStdioServer(
  options: { profile?: string; env?: Env; allowDirs?: readonly string[] } = {},
): Promise<void> {
  const env = options.env ?? process.env;
  const files = filePolicy({ env, ...(options.allowDirs && { allowDirs: options.allowDirs }) });
  process.stderr.write(`switchboard mcp: ${describePolicy(files)}\n`);
  // A bad config is reported at start-up, where the client's log shows it; the tools still start
  // so that a later `switchboard login` fixes them without restarting the client.
  try {
    const resolved = resolveProfile(options.profile, env);
    if (!resolved.url || !resolved.apiKey) {
      process.stderr.write(
        `switchboard mcp: profile "${resolved.profileName}" has no ${resolved.url ? 'API key' : 'URL'} yet; ` +
          'tools will answer not_configured until `switchboard login` or SWITCHBOARD_URL/SWITCHBOARD_API_KEY set it\n',
      );
    }
  } catch (error) {
    process.stderr.write(`switchboard mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  const server = await buildServer({ ...(options.profile && { profile: options.profile }), env, files });
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  await server.connect(new StdioServerTransport());
}
