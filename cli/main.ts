/**
 * The `switchboard` command: `serve` runs the self-hosted server; every other command is
 * generated from the operation registry and calls the HTTP API (it never opens storage).
 */
import { Command } from 'commander';
import { registerServeCommand } from './serve/command.js';

const program = new Command('switchboard')
  .description('Switchboard: a communication center for AI agents')
  .showHelpAfterError();

registerServeCommand(program);

await program.parseAsync(process.argv);
