/**
 * Keys the worker refuses by itself (no valid tag: a mistyped, truncated or forged key) are shown
 * on the agent's page when they name an agent that exists. The refusal is answered first, with the
 * same stateless work as before (docs/design/authentication.md); only then, in the background,
 * does the registry say whether the agent exists, and only then is its object told, so no object
 * is ever created for an agent ID someone made up.
 *
 * A flood of bad keys must not become a flood of registry calls: each isolate forwards at most
 * FORWARDS_PER_WINDOW refusals per window, at most one per agent ID, and drops the rest (the agent
 * page's counts are a lower bound). The agent's object then limits its own writes (rejections.ts).
 */
import type { Env } from '../../core/env.js';
import { agentObject, registry } from '../../core/stubs.js';

const WINDOW_MS = 10_000;
const FORWARDS_PER_WINDOW = 20;

let windowStart = 0;
const forwarded = new Set<string>();

export function noteRefusedKey(
  env: Env,
  waitUntil: (work: Promise<unknown>) => void,
  agentId: string,
  clientIp: string,
): void {
  const now = Date.now();
  if (now - windowStart >= WINDOW_MS) {
    windowStart = now;
    forwarded.clear();
  }
  if (forwarded.has(agentId) || forwarded.size >= FORWARDS_PER_WINDOW) return;
  forwarded.add(agentId);
  waitUntil(
    (async () => {
      // After the answer: the refusal's timing never depends on this.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (!(await registry(env).getAgent(agentId))) return;
      await agentObject(env, agentId).noteRefusedKey(agentId, clientIp);
    })().catch(() => {
      // Best effort: a lost diagnostic entry is not worth an error anywhere.
    }),
  );
}
