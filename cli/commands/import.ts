/**
 * `switchboard admin agents import FILE`: creates the agents of a CSV or JSON file in one request
 * (POST /admin/agents/import), all or nothing. The file is read by the same reader as the
 * console's (core/lib/agent-import.ts); a row it cannot read stops the command before anything is
 * sent, and a row the server refuses is printed with its row number (nothing is created then).
 * The answer, with every new key, is printed once on stdout. With `--keys-out PATH` the keys go
 * to a new CSV file readable only by its owner instead, so they stay out of terminal scrollback
 * and CI logs; if that file cannot be written the keys are printed after all (they cannot be
 * shown again) and the command exits 4, since the agents exist but not what was asked for them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Env } from '../../client/config.js';
import { EXIT, fileError, usageError } from '../../client/errors.js';
import { invokeOperation } from '../../client/invoke.js';
import { operations } from '../../core/contract/index.js';
import { keysCsv, readImportFile } from '../../core/lib/agent-import.js';
import { describeApiError, type Output, printJson } from './execute.js';
import type { GlobalOptions } from './operations.js';

export interface ImportRuntime extends Output {
  env: Env;
  setExitCode(code: number): void;
}

interface RowRefusal {
  row: number;
  field?: string;
  message: string;
}

export function registerImportCommand(agents: Command, runtime: ImportRuntime): void {
  agents
    .command('import')
    .description(
      'Create agents from a CSV (header: name,host,display_name,description) or JSON file; all or nothing: ' +
        'if any row is refused, no agent is created. host is a host ID or name. Prints every new key once ' +
        '(with --keys-out: writes them to that file instead).',
    )
    .argument('<file>', 'the CSV or JSON file')
    .option('--keys-out <path>', 'write the new keys as CSV to this new file (mode 0600), not to stdout')
    .action(async (file: string, opts: { keysOut?: string }, command: Command) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw fileError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const { rows, problems } = readImportFile(text, file);
      if (problems.length > 0) {
        for (const p of problems) runtime.stderr.write(`switchboard: row ${p.row}: ${p.message}\n`);
        throw usageError(`${problems.length} row(s) could not be read; nothing was sent`);
      }
      const globals = command.optsWithGlobals<GlobalOptions>();
      const outcome = await invokeOperation(
        { op: operations.importAgents, values: { agents: rows } },
        { ...(globals.profile && { profile: globals.profile }), env: runtime.env },
      );
      if (!outcome.ok) {
        runtime.stderr.write(`${describeApiError('admin', outcome.status, outcome.error)}\n`);
        const refused = (outcome.error.error as { rows?: RowRefusal[] }).rows ?? [];
        for (const r of refused) {
          runtime.stderr.write(`switchboard: row ${r.row}${r.field ? ` (${r.field})` : ''}: ${r.message}\n`);
        }
        runtime.stderr.write(`${JSON.stringify(outcome.error)}\n`);
        runtime.setExitCode(EXIT.request);
        return;
      }
      const answer = outcome.data as {
        agents: { agent: { agent_id: string; name: string }; api_key: string }[];
      };
      if (opts.keysOut) {
        const keys = answer.agents.map((a) => ({ agent_id: a.agent.agent_id, name: a.agent.name, api_key: a.api_key }));
        try {
          writeFileSync(opts.keysOut, keysCsv(keys), { mode: 0o600, flag: 'wx' });
        } catch (error) {
          runtime.stderr.write(
            `switchboard: the keys were not written to ${opts.keysOut}: ${(error as Error).message}; ` +
              'they follow on stdout, store them now: they cannot be shown again\n',
          );
          printJson(runtime.stdout, answer);
          runtime.setExitCode(EXIT.partial);
          return;
        }
        const withoutKeys = answer.agents.map(({ api_key: _key, ...rest }) => rest);
        printJson(runtime.stdout, { ...answer, agents: withoutKeys, keys_file: opts.keysOut });
        runtime.setExitCode(EXIT.ok);
        return;
      }
      printJson(runtime.stdout, answer);
      runtime.setExitCode(EXIT.ok);
    });
}
