/**
 * The `switchboard` command's entry. It loads almost nothing itself, because agents start it on
 * every poll and MCP clients give `switchboard mcp` about a second: `--version`, `mcp` (with
 * the options it documents) and a bare `inbox` start without commander or the registry; everything
 * else, and any form of those the quick reading below does not recognise, goes to the full program
 * (cli/run.ts).
 */
import { VERSION } from '../core/version.js';
import { quickRoute } from './quick-route.js';

// `switchboard … | head` closes the pipe early; that is not an error worth a trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

const route = quickRoute(process.argv.slice(2));
if (route.kind === 'version') {
  process.stdout.write(`${VERSION}\n`);
} else if (route.kind === 'mcp') {
  const { runStdioServer } = await import('../mcp/stdio.js');
  await runStdioServer({
    ...(route.profile !== undefined && { profile: route.profile }),
    ...(route.allowDirs.length > 0 && { allowDirs: route.allowDirs }),
    env: process.env,
  });
} else {
  const quick = route.kind === 'inbox' ? await import('./quick-inbox.js') : undefined;
  const op = quick?.builtInboxOperation();
  if (quick && op) {
    process.exitCode = await quick.runQuickInbox(op, {
      ...(route.kind === 'inbox' && route.profile !== undefined && { profile: route.profile }),
      env: process.env,
      stdout: process.stdout,
      stderr: process.stderr,
    });
  } else await import('./run.js');
}
