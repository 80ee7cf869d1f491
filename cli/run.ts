/**
 * The `switchboard` program behind the entry (cli/main.ts): `serve` runs the self-hosted server,
 * `backup` and `restore` copy its data directory;
 * every other command is generated from the operation registry and calls the HTTP API (it never
 * opens storage).
 */

import { registerBackupCommands } from './commands/backup.js';
import { registerServeCommand } from './commands/serve.js';
import { buildProgram, runCli } from './program.js';

const io = { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

const program = buildProgram(io);

registerServeCommand(program.command);
registerBackupCommands(program.command);

process.exitCode = await runCli(program, process.argv, io);
