/** Registers `switchboard serve` (what `npm start` runs) on the CLI program. */
import type { Command } from 'commander';
import {
  ConfigError,
  DEFAULT_DATA_DIR,
  DEFAULT_HOST,
  DEFAULT_PORT,
  resolveConfig,
  type ServeFlags,
} from '../../server/config.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the self-hosted Switchboard server (the worker in Miniflare behind the Node front).')
    .option('--host <address>', `address to listen on (env SWITCHBOARD_HOST, default ${DEFAULT_HOST})`)
    .option('--port <port>', `port to listen on, 0 = any free port (env SWITCHBOARD_PORT, default ${DEFAULT_PORT})`)
    .option('--data <dir>', `data directory (env SWITCHBOARD_DATA_DIR, default ${DEFAULT_DATA_DIR})`)
    .option('--tls-cert <file>', 'PEM certificate: serve HTTPS (with --tls-key)')
    .option('--tls-key <file>', 'PEM private key for --tls-cert')
    .option(
      '--log-format <format>',
      'text, or json: one JSON object per line (env SWITCHBOARD_LOG_FORMAT, default text)',
    )
    .option('--config <file>', 'TOML file with host, port, data, tls_cert, tls_key, log_format (flags and env win)')
    .action(async (flags: ServeFlags) => {
      try {
        // Before Miniflare is imported: its import is most of the start-up garbage.
        const memory = (await import('../../server/startup-memory.js')).holdStartupMemory();
        // Loaded on demand: Miniflare takes most of a second to import, and every other CLI
        // command (agents poll with them) should not pay for it.
        const { serve } = await import('../../server/serve.js');
        await serve(resolveConfig(flags, process.env));
        // serve() returns once the server is up and its ready line printed.
        memory.settle();
      } catch (error) {
        // Setting mistakes are one readable line; anything else keeps its stack for the report.
        const text = error instanceof ConfigError ? error.message : ((error as Error).stack ?? String(error));
        process.stderr.write(`switchboard serve: ${text}\n`);
        process.exit(1);
      }
    });
}
