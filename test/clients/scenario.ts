/**
 * What the scripted model does in each session: the tool calls of a scenario, decided from what
 * the conversation holds so far (the results of earlier calls), as a model would. Clients that
 * defer MCP tools behind a search tool (Claude Code's ToolSearch, Qwen Code's tool_search) get
 * that search first, with the deferred names the client listed in its prompt.
 */
import { type Exchange, findTool, type Script, type Step, type Turn } from './model-server.js';

export type Transport = 'stdio' | 'http' | 'bridge' | 'cli';

const SEARCH_TOOLS = ['ToolSearch', 'tool_search'];
const isSearch = (name: string) => SEARCH_TOOLS.includes(name);

/** Our calls so far (search calls left out). */
const ours = (turn: Turn): Exchange[] => turn.exchanges.filter((e) => !isSearch(e.tool));

function field(text: string, name: string): string | undefined {
  return new RegExp(`"${name}"\\s*:\\s*"([^"]+)"`).exec(text)?.[1];
}

/** Clients cap one search's results (Qwen Code at 20). */
const SEARCH_PAGE = 20;
const MAX_SEARCHES = 4;

/**
 * A call to our tool `base`. Deferred tools (the names the client listed in its prompt but not as
 * tools) are loaded through the client's tool search first, all of them, a page per search, so the
 * listing the suite measures is the whole one.
 */
function call(turn: Turn, base: string, args: Record<string, unknown>): Step {
  const search = turn.tools.find(isSearch);
  const searched = turn.exchanges.filter((e) => isSearch(e.tool)).length;
  const deferred = [...new Set(turn.text.match(/mcp__switchboard__[a-z_]+/g) ?? [])].filter(
    (name) => !turn.tools.includes(name),
  );
  if (search && deferred.length > 0 && searched < MAX_SEARCHES) {
    return {
      tool: search,
      args: { query: `select:${deferred.slice(0, SEARCH_PAGE).join(',')}`, max_results: SEARCH_PAGE },
    };
  }
  const name = findTool(
    turn.tools.filter((t) => !/^(send_message|list_directory)$/.test(t)),
    base,
  );
  if (name) return { tool: name, args };
  if (search && searched < 2) return { tool: search, args: { query: 'switchboard', max_results: SEARCH_PAGE } };
  return { text: `I have no Switchboard tool ${base} (tools: ${turn.tools.join(', ')})` };
}

/** The error code of a failed call, if the result is one. */
function errorOf(result: string): string | undefined {
  if (!/"error"\s*:/.test(result) && !/isError|unauthenticated|source_ip_denied/.test(result)) return undefined;
  return field(result, 'code') ?? /(unauthenticated|source_ip_denied|not_configured|unreachable)/.exec(result)?.[1];
}

export interface RoundTrip {
  transport: Exclude<Transport, 'cli'>;
  peerId: string;
  /** What the agent sends back, as a file. */
  outgoing: { filename: string; content: string };
  /** Where a stdio download lands, relative to the client's working directory. */
  receivedPath: string;
  replyBody: string;
}

/** Inbox, claim, download the attachment, ACK, answer with a file; then a final text. */
export function roundTrip(plan: RoundTrip): Script {
  return (turn) => {
    const done = ours(turn);
    const last = done.at(-1);
    if (last) {
      const code = errorOf(last.result);
      if (code) return { text: `Switchboard answered an error: ${code}` };
    }
    const claim = done[1]?.result ?? '';
    switch (done.length) {
      case 0:
        return call(turn, 'check_inbox', {});
      case 1:
        return call(turn, 'claim_messages', { limit: 10 });
      case 2: {
        const fileId = field(claim, 'file_id');
        if (!fileId) return { text: `no attachment in the claim: ${claim.slice(0, 200)}` };
        return call(
          turn,
          'download_file',
          plan.transport === 'stdio' ? { file_id: fileId, out_path: plan.receivedPath } : { file_id: fileId },
        );
      }
      case 3:
        return call(turn, 'ack_messages', {
          acks: [{ message_id: field(claim, 'message_id'), claim_token: field(claim, 'claim_token') }],
        });
      case 4: {
        const file =
          plan.transport === 'stdio'
            ? { file_path: plan.outgoing.filename }
            : {
                file: {
                  filename: plan.outgoing.filename,
                  media_type: 'text/plain',
                  content_base64: Buffer.from(plan.outgoing.content).toString('base64'),
                },
              };
        return call(turn, 'send_message', { to_agent_ids: [plan.peerId], body: plan.replyBody, ...file });
      }
      default:
        return { text: 'Done: one message claimed, its file saved, ACKed, and answered with a file.' };
    }
  };
}

/** One call that shows what the client makes of a refused request (wrong key, wrong address). */
export function probe(): Script {
  return (turn) => {
    const done = ours(turn);
    if (done.length === 0) return call(turn, 'check_inbox', {});
    const result = done[0]?.result ?? '';
    return { text: `Switchboard said: ${errorOf(result) ?? 'no error'}: ${result.slice(0, 300)}` };
  };
}

/** One session of several on one account: who am I, claim one, ACK it. */
export function compete(): Script {
  return (turn) => {
    const done = ours(turn);
    switch (done.length) {
      case 0:
        return call(turn, 'whoami', {});
      case 1:
        return call(turn, 'claim_messages', { limit: 1 });
      case 2: {
        const claim = done[1]?.result ?? '';
        return call(turn, 'ack_messages', {
          acks: [{ message_id: field(claim, 'message_id'), claim_token: field(claim, 'claim_token') }],
        });
      }
      default:
        return { text: 'Done.' };
    }
  };
}

/** No tool at all: the hook notice is what is under test. */
export function idle(): Script {
  return (turn) => ({ text: turn.text.includes('waiting for you') ? 'Noted: mail is waiting.' : 'Nothing to do.' });
}

/** pi: the same round trip through the CLI with the bash tool (the skill says how). */
export function cliRoundTrip(plan: Omit<RoundTrip, 'transport'>): Script {
  return (turn) => {
    const bash = turn.tools.find((t) => t === 'bash');
    if (!bash) return { text: `no bash tool (tools: ${turn.tools.join(', ')})` };
    const done = turn.exchanges.filter((e) => e.tool === 'bash');
    const claim = done[1]?.result ?? '';
    const run = (command: string): Step => ({ tool: bash, args: { command } });
    switch (done.length) {
      case 0:
        return run('switchboard inbox');
      case 1:
        return run('switchboard claim --limit 10');
      case 2:
        return run(`switchboard download ${field(claim, 'file_id')} --out ${plan.receivedPath}`);
      case 3:
        return run(`switchboard ack ${field(claim, 'message_id')}:${field(claim, 'claim_token')}`);
      case 4:
        return run(
          `printf '%s' '${plan.outgoing.content}' > ${plan.outgoing.filename} && switchboard send --to ${plan.peerId} --file ${plan.outgoing.filename} '${plan.replyBody}'`,
        );
      default:
        return { text: 'Done.' };
    }
  };
}
