/**
 * A scripted model on a local port, speaking the three wire formats the real clients use: the
 * Anthropic Messages API (Claude Code), the OpenAI Responses and Chat Completions APIs (Codex,
 * Qwen Code, pi) and the Gemini API (Gemini CLI), streaming where the client asks for it. No
 * dependency, no vendor account, no internet.
 *
 * Each client session authenticates with its own fake API key; the key picks the session's script
 * (a function from what the conversation holds so far to the next tool call or a final text) and
 * every request is recorded: the tools the client showed its model, their listing size, whether
 * our server instructions and a hook notice were in the request, and each tool result.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Wire = 'anthropic' | 'responses' | 'chat' | 'gemini';

/** What a script sees: the conversation as the client sent it, reduced to what matters. */
export interface Turn {
  key: string;
  wire: Wire;
  /** Tool names as the client named them (prefixed, e.g. mcp__switchboard__check_inbox). */
  tools: string[];
  /** The tool calls so far and their results, oldest first. */
  exchanges: Exchange[];
  /** The whole request body as text (system prompt, user turns, tool results). */
  text: string;
}

export interface Exchange {
  tool: string;
  result: string;
}

export type Step = { tool: string; args: Record<string, unknown> } | { text: string };
export type Script = (turn: Turn) => Step;

export interface Recorded {
  key: string;
  wire: Wire;
  path: string;
  tools: string[];
  /** Characters of the tool definitions as sent (names, descriptions, schemas). */
  toolChars: number;
  /** Characters of each tool definition, by name. */
  toolSizes: Record<string, number>;
  exchanges: Exchange[];
  instructions: boolean;
  notice: boolean;
  /** A side request (title, next-speaker check, …): not a turn of the script. */
  side: boolean;
  step?: Step;
  /** The request body as sent. */
  raw: string;
}

/** A phrase from our MCP server instructions (mcp/core.ts), and from the hook's notice. */
export const INSTRUCTIONS_MARK = 'Switchboard lets you exchange messages and files with other AI agents by polling';
export const NOTICE_MARK = 'waiting for you';

export interface ModelServer {
  url: string;
  requests: Recorded[];
  script(key: string, script: Script): void;
  close(): Promise<void>;
}

/** The tool whose client-side name ends with `base` (clients prefix MCP tools differently). */
export function findTool(tools: readonly string[], base: string): string | undefined {
  return tools.find(
    (name) => name === base || name.endsWith(`__${base}`) || name.endsWith(`_${base}`) || name.endsWith(`::${base}`),
  );
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(text).join('');
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.text === 'string') return record.text;
    if ('content' in record) return text(record.content);
    if ('output' in record) return text(record.output);
    return JSON.stringify(value);
  }
  return value === undefined ? '' : String(value);
}

interface Parsed {
  tools: string[];
  toolChars: number;
  toolSizes: Record<string, number>;
  exchanges: Exchange[];
  stream: boolean;
  side: boolean;
}

function parseAnthropic(body: any): Parsed {
  const tools: any[] = body.tools ?? [];
  const names = new Map<string, string>();
  const exchanges: Exchange[] = [];
  for (const message of body.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') names.set(block.id, block.name);
      if (block.type === 'tool_result')
        exchanges.push({ tool: names.get(block.tool_use_id) ?? '?', result: text(block.content) });
    }
  }
  return {
    tools: tools.map((t) => t.name),
    toolChars: JSON.stringify(tools).length,
    toolSizes: Object.fromEntries(tools.map((t) => [t.name, JSON.stringify(t).length])),
    exchanges,
    stream: body.stream === true,
    side: tools.length === 0,
  };
}

/** Codex groups MCP tools in namespaces (`mcp__switchboard` + `check_inbox`); flattened with this. */
const NAMESPACE_JOIN = '::';

function parseResponses(body: any): Parsed {
  const tools: any[] = body.tools ?? [];
  const names: string[] = [];
  const toolSizes: Record<string, number> = {};
  const collect = (list: any[], prefix = '') => {
    for (const t of list) {
      if (Array.isArray(t.tools)) collect(t.tools, `${prefix}${t.name ?? ''}${NAMESPACE_JOIN}`);
      else {
        const name = `${prefix}${t.name ?? t.type}`;
        names.push(name);
        toolSizes[name] = JSON.stringify(t).length;
      }
    }
  };
  collect(tools);
  const calls = new Map<string, string>();
  const exchanges: Exchange[] = [];
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (item.type === 'function_call' || item.type === 'custom_tool_call')
      calls.set(item.call_id, item.namespace ? `${item.namespace}${NAMESPACE_JOIN}${item.name}` : item.name);
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
      exchanges.push({ tool: calls.get(item.call_id) ?? '?', result: text(item.output) });
  }
  return {
    tools: names,
    toolChars: JSON.stringify(tools).length,
    toolSizes,
    exchanges,
    stream: body.stream === true,
    side: false,
  };
}

function parseChat(body: any): Parsed {
  const tools: any[] = body.tools ?? [];
  const calls = new Map<string, string>();
  const exchanges: Exchange[] = [];
  for (const message of body.messages ?? []) {
    for (const c of message.tool_calls ?? []) calls.set(c.id, c.function?.name);
    if (message.role === 'tool')
      exchanges.push({ tool: calls.get(message.tool_call_id) ?? '?', result: text(message.content) });
  }
  const nameOf = (t: any) => t.function?.name ?? t.name;
  return {
    tools: tools.map(nameOf),
    toolChars: JSON.stringify(tools).length,
    toolSizes: Object.fromEntries(tools.map((t) => [nameOf(t), JSON.stringify(t).length])),
    exchanges,
    stream: body.stream === true,
    side: tools.length === 0,
  };
}

function parseGemini(body: any, path: string): Parsed {
  const declarations: any[] = (body.tools ?? []).flatMap((t: any) => t.functionDeclarations ?? []);
  const exchanges: Exchange[] = [];
  for (const content of body.contents ?? []) {
    for (const part of content.parts ?? []) {
      if (part.functionResponse)
        exchanges.push({ tool: part.functionResponse.name, result: text(part.functionResponse.response) });
    }
  }
  const json = body.generationConfig?.responseMimeType === 'application/json';
  return {
    tools: declarations.map((d) => d.name),
    toolChars: JSON.stringify(body.tools ?? []).length,
    toolSizes: Object.fromEntries(declarations.map((d) => [d.name, JSON.stringify(d).length])),
    exchanges,
    stream: path.includes(':streamGenerateContent'),
    side: json || declarations.length === 0,
  };
}

function sse(res: http.ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { event, data } of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  const payload = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

const usage = { input_tokens: 10, output_tokens: 5 };

function answerAnthropic(res: http.ServerResponse, step: Step, stream: boolean, model: string): void {
  const id = `msg_${randomUUID().replaceAll('-', '')}`;
  const block =
    'tool' in step
      ? { type: 'tool_use', id: `toolu_${randomUUID().replaceAll('-', '')}`, name: step.tool, input: step.args }
      : { type: 'text', text: step.text };
  const stop = 'tool' in step ? 'tool_use' : 'end_turn';
  if (!stream) {
    json(res, 200, { id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stop, usage });
    return;
  }
  const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
  const delta =
    block.type === 'tool_use'
      ? { type: 'input_json_delta', partial_json: JSON.stringify((block as { input: unknown }).input) }
      : { type: 'text_delta', text: (block as { text: string }).text };
  sse(res, [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage },
      },
    },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: start } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

function answerResponses(res: http.ServerResponse, step: Step, model: string): void {
  const id = `resp_${randomUUID().replaceAll('-', '')}`;
  let item: Record<string, unknown>;
  if ('tool' in step) {
    const cut = step.tool.lastIndexOf(NAMESPACE_JOIN);
    item = {
      type: 'function_call',
      id: `fc_${randomUUID().replaceAll('-', '')}`,
      call_id: `call_${randomUUID().replaceAll('-', '')}`,
      name: cut < 0 ? step.tool : step.tool.slice(cut + NAMESPACE_JOIN.length),
      ...(cut >= 0 && { namespace: step.tool.slice(0, cut) }),
      arguments: JSON.stringify(step.args),
      status: 'completed',
    };
  } else {
    item = {
      type: 'message',
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    };
  }
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'completed',
    output: [item],
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 } },
  };
  sse(res, [
    {
      event: 'response.created',
      data: { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
    },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item } },
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', response } },
  ]);
}

function answerChat(res: http.ServerResponse, step: Step, stream: boolean, model: string): void {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const call =
    'tool' in step
      ? {
          id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
          type: 'function',
          function: { name: step.tool, arguments: JSON.stringify(step.args) },
        }
      : undefined;
  const finish = call ? 'tool_calls' : 'stop';
  const chatUsage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!stream) {
    const message = call
      ? { role: 'assistant', content: null, tool_calls: [call] }
      : { role: 'assistant', content: (step as { text: string }).text };
    json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: chatUsage,
    });
    return;
  }
  const chunk = (delta: unknown, finishReason: string | null, extra: Record<string, unknown> = {}) => ({
    data: {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
      ...extra,
    },
  });
  sse(res, [
    chunk(
      call
        ? { role: 'assistant', tool_calls: [{ index: 0, ...call }] }
        : { role: 'assistant', content: (step as { text: string }).text },
      null,
    ),
    chunk({}, finish, { usage: chatUsage }),
    { data: '[DONE]' },
  ]);
}

function answerGemini(res: http.ServerResponse, step: Step, stream: boolean, sideJson: boolean): void {
  const part =
    'tool' in step ? { functionCall: { name: step.tool, args: step.args } } : { text: (step as { text: string }).text };
  const body = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'scripted',
  };
  if (stream && !sideJson) sse(res, [{ data: body }]);
  else json(res, 200, body);
}

function keyOf(req: http.IncomingMessage, url: URL): string {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7);
  const header = req.headers['x-api-key'] ?? req.headers['x-goog-api-key'];
  if (typeof header === 'string') return header;
  return url.searchParams.get('key') ?? '';
}

export async function startModelServer(): Promise<ModelServer> {
  const scripts = new Map<string, Script>();
  const requests: Recorded[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://model');
      const path = url.pathname;
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        json(res, 400, { error: { message: 'not JSON' } });
        return;
      }
      if (req.method === 'GET') {
        // Model lists (Codex, Gemini): one scripted model.
        json(res, 200, {
          object: 'list',
          data: [{ id: 'scripted', object: 'model', owned_by: 'switchboard' }],
          models: [],
        });
        return;
      }
      if (path.endsWith('/count_tokens') || path.includes(':countTokens')) {
        json(res, 200, { input_tokens: 10, totalTokens: 10 });
        return;
      }
      let wire: Wire;
      let parsed: Parsed;
      if (path.endsWith('/messages')) [wire, parsed] = ['anthropic', parseAnthropic(body)];
      else if (path.endsWith('/responses')) [wire, parsed] = ['responses', parseResponses(body)];
      else if (path.endsWith('/chat/completions')) [wire, parsed] = ['chat', parseChat(body)];
      else if (path.includes(':generateContent') || path.includes(':streamGenerateContent'))
        [wire, parsed] = ['gemini', parseGemini(body, path)];
      else {
        json(res, 404, { error: { message: `no such path ${path}` } });
        return;
      }
      const key = keyOf(req, url);
      const script = scripts.get(key);
      const record: Recorded = {
        key,
        wire,
        path,
        tools: parsed.tools,
        toolChars: parsed.toolChars,
        toolSizes: parsed.toolSizes,
        exchanges: parsed.exchanges,
        instructions: raw.includes(INSTRUCTIONS_MARK),
        notice: raw.includes(NOTICE_MARK),
        side: parsed.side,
        raw,
      };
      requests.push(record);
      let step: Step;
      if (wire === 'gemini' && body.generationConfig?.responseMimeType === 'application/json') {
        // Gemini CLI's own checks (who speaks next, model routing): the user, the default model.
        step = { text: JSON.stringify({ reasoning: 'done', next_speaker: 'user', model_choice: 'flash' }) };
      } else if (!script || parsed.side) {
        step = { text: 'ok' };
      } else {
        try {
          step = script({ key, wire, tools: parsed.tools, exchanges: parsed.exchanges, text: raw });
        } catch (error) {
          step = { text: `script error: ${(error as Error).message}` };
        }
      }
      record.step = step;
      const model = typeof body.model === 'string' ? body.model : 'scripted';
      if (wire === 'anthropic') answerAnthropic(res, step, parsed.stream, model);
      else if (wire === 'responses') answerResponses(res, step, model);
      else if (wire === 'chat') answerChat(res, step, parsed.stream, model);
      else answerGemini(res, step, parsed.stream, body.generationConfig?.responseMimeType === 'application/json');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (key, script) => scripts.set(key, script),
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
