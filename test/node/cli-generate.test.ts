import { describe, expect, it } from 'vitest';
import { itemsFromJson, parseCompound } from '../../cli/commands/operations.js';
import { EXIT } from '../../client/errors.js';
import { parse } from './fixtures.js';

describe('generated CLI commands: options from the zod schemas', () => {
  it('maps positionals, renamed repeatable arrays, numbers, booleans, enums and JSON objects', async () => {
    const run = await parse([
      'things',
      'poke',
      'thg_1',
      'hello there',
      '--to',
      'agt_a',
      '--to',
      'agt_b',
      '--count',
      '3',
      '--urgent',
      '--order',
      'newest',
      '--meta',
      '{"a":1}',
      '--page',
      '2',
      '--file',
      'notes.txt',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    expect(run.requests).toHaveLength(1);
    expect(run.requests[0]?.values).toEqual({
      thing_id: 'thg_1',
      text: 'hello there',
      to_agent_ids: ['agt_a', 'agt_b'],
      count: 3,
      urgent: true,
      order: 'newest',
      meta: { a: 1 },
      page: 2,
    });
    expect(run.requests[0]?.filePath).toBe('notes.txt');
  });

  it('--no-<flag> sends false', async () => {
    const run = await parse(['things', 'poke', 'thg_1', 'x', '--to', 'agt_a', '--no-urgent']);
    expect(run.requests[0]?.values.urgent).toBe(false);
  });

  it('reads the stdin field with --stdin exactly as given, trailing newlines included', async () => {
    const run = await parse(['things', 'poke', 'thg_1', '--to', 'agt_a', '--stdin'], { stdin: 'line 1\nline 2\n\n' });
    expect(run.code).toBe(EXIT.ok);
    expect(run.requests[0]?.values.text).toBe('line 1\nline 2\n\n');
  });

  it('--file without a text sends an empty text (a file alone is a message)', async () => {
    const run = await parse(['things', 'poke', 'thg_1', '--to', 'agt_a', '--file', 'notes.txt']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    expect(run.requests[0]?.values.text).toBe('');
    expect(run.requests[0]?.filePath).toBe('notes.txt');
  });

  it('items from stdin: none (an empty claim, or nothing at all) sends nothing and exits 0', async () => {
    for (const stdin of ['{"claims":[]}', '', '\n']) {
      const run = await parse(['pairs'], { stdin });
      expect(run.code, JSON.stringify(stdin)).toBe(EXIT.ok);
      expect(run.requests, JSON.stringify(stdin)).toHaveLength(0);
      expect(JSON.parse(run.stdout)).toEqual({ results: [] });
    }
  });

  it('refuses text and --stdin together', async () => {
    const run = await parse(['things', 'poke', 'thg_1', 'x', '--to', 'agt_a', '--stdin'], { stdin: 'y' });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/not both/);
    expect(run.requests).toHaveLength(0);
  });

  it('rejects unknown flags, bad numbers, bad enum values and a missing required option with exit 2', async () => {
    for (const argv of [
      ['things', 'poke', 'thg_1', 'x', '--to', 'agt_a', '--bogus'],
      ['things', 'poke', 'thg_1', 'x', '--to', 'agt_a', '--count', 'many'],
      ['things', 'poke', 'thg_1', 'x', '--to', 'agt_a', '--order', 'sideways'],
      ['things', 'poke', 'thg_1', 'x'],
      ['things', 'poke', 'thg_1', 'x', '--to', 'agt_a', '--meta', '{not json'],
    ]) {
      const run = await parse(argv);
      expect(run.code, argv.join(' ')).toBe(EXIT.usage);
      expect(run.stderr, argv.join(' ')).toMatch(/error: /);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.requests).toHaveLength(0);
    }
  });

  it('takes A:B words for an array of objects, in field order', async () => {
    const run = await parse(['pairs', 'msg_1:tok_a', 'msg_2:tok:with:colons']);
    expect(run.requests[0]?.values.acks).toEqual([
      { message_id: 'msg_1', claim_token: 'tok_a' },
      { message_id: 'msg_2', claim_token: 'tok:with:colons' },
    ]);
  });

  it('rejects a malformed A:B word', async () => {
    const run = await parse(['pairs', 'msg_1']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/MESSAGE_ID:CLAIM_TOKEN|message_id:claim_token/);
  });

  it('reads the items from piped JSON when no words are given (claim | ack)', async () => {
    const claimAnswer = {
      claims: [
        { message: { message_id: 'msg_1', body: 'hi', attachment: null }, claim_token: 'tok_1', claim_expires_at: 'x' },
        { message: { message_id: 'msg_2', body: 'yo', attachment: null }, claim_token: 'tok_2', claim_expires_at: 'x' },
      ],
    };
    const run = await parse(['pairs'], { stdin: JSON.stringify(claimAnswer) });
    expect(run.code).toBe(EXIT.ok);
    expect(run.requests[0]?.values.acks).toEqual([
      { message_id: 'msg_1', claim_token: 'tok_1' },
      { message_id: 'msg_2', claim_token: 'tok_2' },
    ]);
  });

  it('reads stdin for "-" even on a terminal, and wants words or a pipe on a terminal', async () => {
    const dash = await parse(['pairs', '-'], { stdin: '{"acks":[{"message_id":"m","claim_token":"t"}]}', tty: true });
    expect(dash.requests[0]?.values.acks).toEqual([{ message_id: 'm', claim_token: 't' }]);
    const notJson = await parse(['pairs'], { stdin: 'nope' });
    expect(notJson.code).toBe(EXIT.usage);
    expect(notJson.requests).toHaveLength(0);
    const tty = await parse(['pairs'], { tty: true });
    expect(tty.code).toBe(EXIT.usage);
    expect(tty.stderr).toMatch(/pipe JSON/);
  });

  it('never takes a secret field from argv: --<field>-stdin, else refuses without a terminal', async () => {
    const withStdin = await parse(['secret', '--username', 'admin', '--password-stdin'], { stdin: 'pw 123\n' });
    expect(withStdin.requests[0]?.values).toEqual({ username: 'admin', password: 'pw 123' });
    const asFlag = await parse(['secret', '--username', 'admin', '--password', 'x']);
    expect(asFlag.code).toBe(EXIT.usage);
    expect(asFlag.stderr).toMatch(/unknown option '--password'/);
    const noTerminal = await parse(['secret', '--username', 'admin']);
    expect(noTerminal.code).toBe(EXIT.usage);
    expect(noTerminal.stderr).toMatch(/--password-stdin/);
  });

  it('asks for a secret on a terminal without echoing it', async () => {
    const run = await parse(['secret', '--username', 'admin'], { stdin: 'pw\u007fW 9\r', tty: true });
    expect(run.code).toBe(EXIT.ok);
    expect(run.requests[0]?.values).toEqual({ username: 'admin', password: 'pW 9' });
    expect(run.stderr).toBe('password: \n');
  });

  it('gives raw-answer operations a required --out and --force', async () => {
    const missing = await parse(['fetch', 'blob_1']);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toMatch(/--out/);
    const ok = await parse(['fetch', 'blob_1', '--out', '/tmp/x', '--force']);
    expect(ok.requests[0]).toMatchObject({ values: { blob_id: 'blob_1' }, outPath: '/tmp/x', overwrite: true });
  });

  it('prints help to stdout with exit 0', async () => {
    const run = await parse(['things', 'poke', '--help']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toMatch(/--to <to_agent_ids>\s+Targets\. \(repeatable\)/);
    expect(run.stdout).toMatch(/--file <path>/);
  });
});

describe('compound words and stdin items', () => {
  it('parseCompound keeps the remainder in the last field', () => {
    expect(parseCompound(['a', 'b', 'c'], '1:2:3:4')).toEqual({ a: '1', b: '2', c: '3:4' });
    expect(() => parseCompound(['a', 'b'], '1:')).toThrow(/no empty part/);
  });

  it('itemsFromJson accepts the body form, a bare array, and nested answers; refuses non-JSON', () => {
    const keys = ['message_id', 'claim_token'];
    expect(itemsFromJson('[{"message_id":"m","claim_token":"t","x":1}]', keys)).toEqual([
      { message_id: 'm', claim_token: 't' },
    ]);
    expect(itemsFromJson('{"acks":[{"message_id":"m","claim_token":"t"}]}', keys)).toHaveLength(1);
    expect(() => itemsFromJson('nope', keys)).toThrow(/not JSON/);
  });
});
