/**
 * Generates one commander command per registry operation with `cli` set. The command words,
 * positionals and per-op hints come from `CliSpec`; every option, its type and its help come from
 * the operation's zod schemas (see CliSpec in core/contract/registry.ts for the rules).
 */
import { Argument, type Command, InvalidArgumentError, Option } from 'commander';
import { LocalError, usageError } from '../../client/errors.js';
import { type FieldInfo, fieldInfo, type ItemInfo, objectShape, operationFields } from '../../client/fields.js';
import type { InvokeRequest } from '../../client/invoke.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { dropTrailingNewline, type InputStream, promptSecret, readAll } from '../lib/terminal.js';

export interface GlobalOptions {
  profile?: string;
}

export interface CommandRuntime {
  stdin: InputStream;
  stderr: NodeJS.WritableStream;
  /** Carries out the assembled request (prints the answer and records the exit code). */
  execute(request: InvokeRequest, globals: GlobalOptions): Promise<void>;
  /** Nothing to send (an empty `claim | ack`): print this answer and succeed. */
  nothingToDo?(answer: unknown): void;
}

/** Thrown by collectValues when stdin held no items: the command succeeds without a request. */
class NoItems {
  constructor(readonly field: string) {}
}

/**
 * What a command that had nothing to send prints: its answer's arrays, empty (`{"results":[]}`
 * for ack), so the next stage of a pipeline still reads JSON.
 */
export function emptyAnswer(op: OperationDef): Record<string, unknown> {
  const answer: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(objectShape(op.response) ?? {})) {
    if (fieldInfo(name, 'body', schema).kind === 'array') answer[name] = [];
  }
  return answer;
}

/** How one input field is given on the command line. */
export interface Binding {
  field: FieldInfo;
  via: 'positional' | 'option' | 'secret';
  /** `<AGENT_ID>` or `--to`: how messages name it. */
  display: string;
  /** commander's key in `opts()` (options and secrets). */
  attribute?: string;
  /** Index in `processedArgs` (positionals). */
  index?: number;
}

export interface GeneratedCommand {
  op: OperationDef;
  /** The full command words, e.g. `admin hosts create`. */
  path: string;
  command: Command;
  bindings: Binding[];
}

const GROUP_HELP: Record<string, string> = {
  admin: 'Administration (hosts, agents, keys, settings); sign in first with `switchboard admin login`',
};

/** `ack -`: read the items from stdin even when it is a terminal or the field is optional. */
const STDIN_WORD = '-';

const kebab = (name: string) => name.replace(/_/g, '-');
const argName = (field: FieldInfo) =>
  field.item?.kind === 'object' && field.item.keys ? field.item.keys.join(':').toUpperCase() : field.name.toUpperCase();

function parseScalar(kind: ItemInfo['kind'], enumValues: readonly string[] | undefined, raw: string): unknown {
  switch (kind) {
    case 'number': {
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value)) throw new InvalidArgumentError('Not a number.');
      return value;
    }
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw new InvalidArgumentError('Use true or false.');
    case 'enum':
      if (enumValues && !enumValues.includes(raw)) {
        throw new InvalidArgumentError(`Allowed: ${enumValues.join(', ')}.`);
      }
      return raw;
    case 'object':
    case 'json':
    case 'array':
      try {
        return JSON.parse(raw);
      } catch {
        throw new InvalidArgumentError('Not valid JSON.');
      }
    default:
      return raw;
  }
}

/** `msg_1:tok_2` -> `{message_id: 'msg_1', claim_token: 'tok_2'}`; the last field takes the rest. */
export function parseCompound(keys: readonly string[], raw: string): Record<string, string> {
  const parts = raw.split(':');
  if (parts.length < keys.length) throw new InvalidArgumentError(`Expected ${keys.join(':')}.`);
  const head = parts.slice(0, keys.length - 1);
  const values = [...head, parts.slice(keys.length - 1).join(':')];
  if (values.some((v) => v === '')) throw new InvalidArgumentError(`Expected ${keys.join(':')} (no empty part).`);
  return Object.fromEntries(keys.map((key, i) => [key, values[i] as string]));
}

function itemParser(item: ItemInfo): (raw: string) => unknown {
  if (item.kind === 'object' && item.keys) {
    const keys = item.keys;
    return (raw) => {
      if (raw === STDIN_WORD) return raw;
      return raw.trimStart().startsWith('{') ? parseScalar('json', undefined, raw) : parseCompound(keys, raw);
    };
  }
  return (raw) => parseScalar(item.kind, item.enumValues, raw);
}

const collect = (parse: (raw: string) => unknown) => (raw: string, previous: unknown[] | undefined) => [
  ...(previous ?? []),
  parse(raw),
];

function findValue(source: Record<string, unknown>, key: string): unknown {
  if (source[key] !== undefined) return source[key];
  for (const nested of Object.values(source)) {
    if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
      const value = (nested as Record<string, unknown>)[key];
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

/**
 * Items for an array-of-objects field from JSON on stdin: each object in the arrays of the input
 * that carries every item field, directly or one level down. So the `claim` answer
 * `{claims:[{message:{message_id}, claim_token}]}` gives `[{message_id, claim_token}]`, and the
 * body form `{acks:[…]}` or a bare array works too.
 */
export function itemsFromJson(text: string, keys: readonly string[]): Record<string, unknown>[] {
  // An empty stdin (the previous stage printed nothing) has no items, like `{"claims":[]}`.
  if (text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw usageError('stdin is not JSON');
  }
  const items: Record<string, unknown>[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 3 || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const element of value) visit(element, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    const picked = keys.map((key) => findValue(record, key));
    if (picked.every((v) => v !== undefined)) {
      items.push(Object.fromEntries(keys.map((key, i) => [key, picked[i]])));
      return;
    }
    for (const nested of Object.values(record)) if (Array.isArray(nested)) visit(nested, depth + 1);
  };
  visit(parsed, 0);
  return items;
}

function ensureGroup(program: Command, words: readonly string[]): Command {
  let parent = program;
  for (const [i, word] of words.entries()) {
    let group = parent.commands.find((c) => c.name() === word);
    if (!group) {
      const path = words.slice(0, i + 1).join(' ');
      group = parent.command(word).description(GROUP_HELP[path] ?? `${path} commands`);
    }
    parent = group;
  }
  return parent;
}

function helpFor(field: FieldInfo, extra?: string): string {
  const parts = [field.description ?? field.name.replace(/_/g, ' ')];
  if (field.kind === 'array') parts.push('(repeatable)');
  if (field.kind === 'json' || field.kind === 'object') parts.push('(JSON)');
  if (extra) parts.push(extra);
  return parts.join(' ');
}

/**
 * Gives an option or argument its help text when help is shown, not when the command is built:
 * the contract's help text costs an OpenAPI generator run (client/fields.ts), which a plain
 * `switchboard inbox` must not pay at start-up. Commander reads the public `description` field
 * only to print help.
 */
function lazyHelp<T extends Option | Argument>(target: T, text: () => string): T {
  let cached: string | undefined;
  Object.defineProperty(target, 'description', {
    enumerable: true,
    configurable: true,
    get: () => {
      cached ??= text();
      return cached;
    },
    set: (value: string) => {
      cached = value;
    },
  });
  return target;
}

function addPositional(command: Command, field: FieldInfo, isLast: boolean, optional: boolean): void {
  const variadic = field.kind === 'array';
  if (variadic && !isLast) throw new Error(`positional ${field.name} is an array and must come last`);
  const name = `${argName(field)}${variadic ? '...' : ''}`;
  const argument = lazyHelp(new Argument(optional ? `[${name}]` : `<${name}>`), () => helpFor(field));
  if (variadic && field.item) argument.argParser(collect(itemParser(field.item)));
  else if (field.kind !== 'string') argument.argParser((raw: string) => parseScalar(field.kind, field.enumValues, raw));
  if (field.enumValues && !variadic) argument.choices([...field.enumValues]);
  command.addArgument(argument);
}

function addOption(command: Command, field: FieldInfo, flag: string): string[] {
  const placeholder = field.item?.kind === 'object' ? argName(field).toLowerCase() : field.name;
  if (field.kind === 'boolean') {
    const on = lazyHelp(new Option(`--${flag}`), () => helpFor(field));
    const off = new Option(`--no-${flag}`, `set ${field.name} to false`);
    command.addOption(on).addOption(off);
    return [on.attributeName()];
  }
  const option = lazyHelp(new Option(`--${flag} <${placeholder}>`), () => helpFor(field));
  if (field.kind === 'array' && field.item) option.argParser(collect(itemParser(field.item)));
  else if (field.enumValues) option.choices([...field.enumValues]);
  else if (field.kind !== 'string') option.argParser((raw: string) => parseScalar(field.kind, field.enumValues, raw));
  if (field.required) option.makeOptionMandatory();
  command.addOption(option);
  return [option.attributeName()];
}

function checkHints(op: OperationDef, fields: readonly FieldInfo[]): void {
  if (!op.cli) return;
  const names = new Set(fields.map((f) => f.name));
  const named = [
    ...(op.cli.positionals ?? []),
    ...(op.cli.secretFields ?? []),
    ...Object.keys(op.cli.optionNames ?? {}),
    ...(op.cli.stdinField ? [op.cli.stdinField] : []),
  ];
  for (const name of named) {
    if (!names.has(name)) throw new Error(`${op.id}: the CLI hint names "${name}", which is not an input field`);
  }
}

export function registerOperationCommand(
  program: Command,
  op: OperationDef,
  runtime: CommandRuntime,
): GeneratedCommand | undefined {
  const spec = op.cli;
  if (!spec) return undefined;
  const words = spec.command.trim().split(/\s+/);
  const leaf = words.at(-1) as string;
  const parent = ensureGroup(program, words.slice(0, -1));
  if (parent.commands.some((c) => c.name() === leaf)) {
    throw new Error(`${op.id}: the command "${spec.command}" is already taken`);
  }
  const command = parent
    .command(leaf)
    .summary(op.summary)
    .description(op.description ? `${op.summary}.\n\n${op.description}` : op.summary);

  const fields = operationFields(op);
  checkHints(op, fields);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const bindings: Binding[] = [];
  const positionals = spec.positionals ?? [];
  const secrets = new Set(spec.secretFields ?? []);

  positionals.forEach((name, index) => {
    const field = byName.get(name) as FieldInfo;
    const fromStdin = name === spec.stdinField || field.item?.kind === 'object';
    addPositional(command, field, index === positionals.length - 1, !field.required || fromStdin);
    bindings.push({ field, via: 'positional', display: `<${argName(field)}>`, index });
  });
  for (const field of fields) {
    if (positionals.includes(field.name)) continue;
    if (secrets.has(field.name)) {
      const option = new Option(`--${kebab(field.name)}-stdin`, `read ${field.name} from stdin (else asked for)`);
      command.addOption(option);
      bindings.push({ field, via: 'secret', display: option.long as string, attribute: option.attributeName() });
      continue;
    }
    const flag = spec.optionNames?.[field.name] ?? kebab(field.name);
    const [attribute] = addOption(command, field, flag);
    bindings.push({ field, via: 'option', display: `--${flag}`, attribute: attribute as string });
  }
  if (spec.stdinField) {
    command.option(
      '--stdin',
      `read ${argName(byName.get(spec.stdinField) as FieldInfo)} from stdin, exactly as given (a final newline included)`,
    );
  }
  if (op.upload) command.option('--file <path>', 'attach a local file (read here and uploaded as bytes)');
  if (op.rawResponse) {
    command.requiredOption('--out <path>', 'write the bytes to this local path (prints metadata as JSON)');
    command.option('--force', 'replace --out if it exists');
  }

  command.action(async () => {
    const opts = command.opts<Record<string, unknown>>();
    try {
      const values = await collectValues(op, command, opts, bindings, runtime);
      const request: InvokeRequest = { op, values };
      if (typeof opts.file === 'string') request.filePath = opts.file;
      if (typeof opts.out === 'string') request.outPath = opts.out;
      if (opts.force === true) request.overwrite = true;
      await runtime.execute(request, command.optsWithGlobals<GlobalOptions>());
    } catch (error) {
      if (error instanceof NoItems) {
        runtime.stderr.write(`switchboard: no ${error.field} on stdin: nothing sent\n`);
        runtime.nothingToDo?.(emptyAnswer(op));
        return;
      }
      throw renameField(error, bindings);
    }
  });
  return { op, path: words.join(' '), command, bindings };
}

async function collectValues(
  op: OperationDef,
  command: Command,
  opts: Record<string, unknown>,
  bindings: readonly Binding[],
  runtime: CommandRuntime,
): Promise<Record<string, unknown>> {
  const spec = op.cli as Exclude<OperationDef['cli'], false>;
  const values: Record<string, unknown> = {};
  let stdinOwner: string | undefined;
  const takeStdin = (owner: string) => {
    if (stdinOwner) throw usageError(`stdin cannot feed both ${stdinOwner} and ${owner}`);
    stdinOwner = owner;
    return readAll(runtime.stdin);
  };

  for (const binding of bindings) {
    const { field } = binding;
    if (binding.via === 'positional') {
      const value = command.processedArgs[binding.index as number];
      const empty = value === undefined || (Array.isArray(value) && value.length === 0);
      const dash = Array.isArray(value) && value.length === 1 && value[0] === STDIN_WORD;
      if (field.item?.kind === 'object' && field.item.keys && (dash || (empty && field.required))) {
        if (empty && runtime.stdin.isTTY) throw usageError(`give ${binding.display} or pipe JSON into stdin`);
        const items = itemsFromJson(await takeStdin(binding.display), field.item.keys);
        // `claim | ack` with nothing claimed: nothing to send, and not an error.
        if (items.length === 0) throw new NoItems(field.name);
        values[field.name] = items;
      } else if (!empty) {
        values[field.name] = value;
      }
    } else if (binding.via === 'secret') {
      if (opts[binding.attribute as string]) {
        values[field.name] = dropTrailingNewline(await takeStdin(binding.display));
      } else if (runtime.stdin.isTTY) {
        values[field.name] = await promptSecret(`${field.name}: `, runtime.stdin, runtime.stderr);
      } else if (field.required) {
        throw usageError(`give ${field.name} with ${binding.display} (it is never taken from the command line)`);
      }
    } else {
      const value = opts[binding.attribute as string];
      if (value !== undefined) values[field.name] = value;
    }
  }

  if (spec.stdinField && opts.stdin) {
    if (values[spec.stdinField] !== undefined) throw usageError(`give the ${spec.stdinField} or --stdin, not both`);
    // Exactly as read, a trailing newline included: the body is sent as given.
    values[spec.stdinField] = await takeStdin('--stdin');
  }
  // A file alone is a message (the server refuses only an entirely empty one).
  if (op.upload && typeof opts.file === 'string' && spec.stdinField && values[spec.stdinField] === undefined) {
    values[spec.stdinField] = '';
  }
  return values;
}

/** A validation error names the flag or argument the user typed, not the wire field. */
function renameField(error: unknown, bindings: readonly Binding[]): unknown {
  if (!(error instanceof LocalError) || !error.field) return error;
  const [top, ...rest] = error.field.split('.');
  const binding = bindings.find((b) => b.field.name === top);
  if (!binding) return error;
  const where = rest.length ? `${binding.display} (${rest.join('.')})` : binding.display;
  return new LocalError(error.code, `${where}: ${error.detail ?? error.message}`, error.field, error.detail);
}

export function registerOperationCommands(
  program: Command,
  operations: readonly OperationDef[],
  runtime: CommandRuntime,
): GeneratedCommand[] {
  const generated: GeneratedCommand[] = [];
  for (const op of operations) {
    const entry = registerOperationCommand(program, op, runtime);
    if (entry) generated.push(entry);
  }
  return generated;
}
