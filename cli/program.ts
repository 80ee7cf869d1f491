/**
 * The `switchboard` program: global options, the generated operation commands, the config
 * commands and `mcp`, and one place that turns every failure into a line on stderr and an exit code.
 */
import { Command, CommanderError } from 'commander';
import type { Env } from '../client/config.js';
import { EXIT } from '../client/errors.js';
import { operationList } from '../core/contract/index.js';
import type { OperationDef } from '../core/contract/registry.js';
import { VERSION } from '../core/version.js';
import { registerConfigCommands } from './commands/config.js';
import { executeAndPrint, printJson } from './commands/execute.js';
import { registerHookCommand } from './commands/hook.js';
import { registerImportCommand } from './commands/import.js';
import { type CommandRuntime, type GeneratedCommand, registerOperationCommands } from './commands/operations.js';
import { reportFailure } from './lib/outcome.js';
import type { InputStream } from './lib/terminal.js';

export interface ProgramIo {
  env: Env;
  stdin: InputStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface Program {
  command: Command;
  generated: GeneratedCommand[];
  /** The exit code the last action recorded. */
  exitCode(): number;
}

const EPILOG = `
Configuration: ${'`switchboard login --url URL --key KEY`'} writes a profile to the global config file
(SWITCHBOARD_CONFIG, else $XDG_CONFIG_HOME/switchboard/config.json, ~/.config/switchboard/config.json,
or %APPDATA%\\switchboard\\config.json). SWITCHBOARD_PROFILE, SWITCHBOARD_URL and SWITCHBOARD_API_KEY override it.

Output: the JSON answer on stdout; diagnostics on stderr.
Exit codes: 0 ok, 1 internal error, 2 usage or configuration error (nothing sent), 3 the server answered
an error (code and message on stderr), 4 some per-target/per-item results rejected, 5 server unreachable.`;

export function buildProgram(
  io: ProgramIo = { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  options: { operations?: readonly OperationDef[]; execute?: CommandRuntime['execute'] } = {},
): Program {
  let exitCode: number = EXIT.ok;
  const command = new Command('switchboard')
    .description('Switchboard: a communication center for AI agents (messages and files by polling)')
    .version(VERSION, '-V, --version')
    .option('--profile <name>', 'config profile to use (env SWITCHBOARD_PROFILE; default: the current profile)')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .addHelpText('after', EPILOG);

  const runtime: CommandRuntime = {
    stdin: io.stdin,
    stderr: io.stderr,
    execute:
      options.execute ??
      (async (request, globals) => {
        exitCode = await executeAndPrint(request, globals, io.env, io);
      }),
    nothingToDo: (answer) => {
      printJson(io.stdout, answer);
      exitCode = EXIT.ok;
    },
  };
  const generated = registerOperationCommands(command, options.operations ?? operationList, runtime);
  registerConfigCommands(command, { ...io, setExitCode: (code) => (exitCode = code) });
  registerHookCommand(command, { ...io, setExitCode: (code) => (exitCode = code) });
  const agentCommands = command.commands.find((c) => c.name() === 'admin')?.commands.find((c) => c.name() === 'agents');
  if (agentCommands) registerImportCommand(agentCommands, { ...io, setExitCode: (code) => (exitCode = code) });

  command
    .command('mcp')
    .description('Run the MCP server on stdio (tools generated from the agent operations) for an agent client')
    .option(
      '--allow-dir <dir>',
      'a directory whose files the tools may read and write (repeatable; env SWITCHBOARD_MCP_ALLOWED_DIRS; default: the working directory)',
      (dir: string, dirs: string[] | undefined) => [...(dirs ?? []), dir],
    )
    .action(async (_flags: unknown, self: Command) => {
      const { runStdioServer } = await import('../mcp/stdio.js');
      const { profile, allowDir } = self.optsWithGlobals<{ profile?: string; allowDir?: string[] }>();
      await runStdioServer({ ...(profile && { profile }), ...(allowDir && { allowDirs: allowDir }), env: io.env });
    });

  return { command, generated, exitCode: () => exitCode };
}

/** Parses and runs; never throws, never prints a stack for a user error. */
export async function runCli(program: Program, argv: readonly string[], io: Pick<ProgramIo, 'env' | 'stderr'>) {
  try {
    await program.command.parseAsync([...argv]);
    return program.exitCode();
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message (and help) already.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportFailure(error, io);
  }
}
