/** Registers `switchboard backup` and `switchboard restore` (server/backup.ts) on the CLI program. */
import type { Command } from 'commander';
import { LocalError } from '../../client/errors.js';

async function runAndPrint(name: string, run: () => Promise<unknown>): Promise<void> {
  let answer: unknown;
  try {
    answer = await run();
  } catch (error) {
    const { BackupError } = await import('../../server/backup.js');
    // A refusal is one readable line and exit code 2 (runCli); anything else is an internal error.
    if (error instanceof BackupError) throw new LocalError('local_file_error', `${name}: ${error.message}`);
    throw error;
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description(
      'Write a consistent backup of a data directory to FILE (a .tar.gz), also while a server runs on it: ' +
        'that server holds new requests for a moment while its files are copied.',
    )
    .requiredOption('--data <dir>', 'the data directory')
    .requiredOption('--out <file>', 'the backup file to write (replaced only once complete)')
    .action((flags: { data: string; out: string }) =>
      runAndPrint('backup', async () => (await import('../../server/backup.js')).backup(flags.data, flags.out)),
    );
  program
    .command('restore')
    .description('Fill a new or empty data directory from a backup file (a non-empty one is refused).')
    .requiredOption('--from <file>', 'the backup file')
    .requiredOption('--data <dir>', 'the data directory to create')
    .action((flags: { from: string; data: string }) =>
      runAndPrint('restore', async () => (await import('../../server/backup.js')).restore(flags.from, flags.data)),
    );
}
