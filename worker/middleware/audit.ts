/**
 * The audit trail (docs/audit-log.md): every state-changing admin operation and every sign-in
 * writes to the registry's audit log, here and nowhere else, so a new operation is audited by
 * being declared. An entry names the operation, the IDs it touched, the administrator, the client
 * address and the outcome. The IDs come only from what the operation's schemas validated (path
 * parameters, `*_id` fields of the validated query and body) and from the answer, never from the
 * raw body, so a request cannot plant text in the log. Refused sign-ins are counted per address
 * and account, and throttled ones (429) write nothing. Never a body: no password, key or message
 * text can reach the log.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError, reviveApiError } from '../../core/contract/errors.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { registry } from '../../core/stubs.js';
import type { AppEnv } from '../handlers/types.js';

/** Sign-in and first-run setup are public routes, but they are what an audit is most about. */
const SIGN_IN_OPERATIONS = new Set(['adminLogin', 'adminSetup']);

export function isAudited(op: OperationDef): boolean {
  if (op.changesNothing) return false;
  return (op.role === 'admin' && op.method !== 'get') || SIGN_IN_OPERATIONS.has(op.id);
}

function isIdKey(key: string, withUsername: boolean): boolean {
  return key.endsWith('_id') || key.endsWith('_ids') || (withUsername && key === 'username');
}

/** ID-like values of an object and of the objects directly inside it (`{ agent: { agent_id } }`). */
function collectIds(value: unknown, withUsername: boolean, into: string[], depth = 0): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || depth > 1) return;
  for (const [key, item] of Object.entries(value)) {
    if (isIdKey(key, withUsername)) {
      if (typeof item === 'string') into.push(item);
      else if (Array.isArray(item)) into.push(...item.filter((v): v is string => typeof v === 'string'));
    } else if (typeof item === 'object') collectIds(item, withUsername, into, depth + 1);
  }
}

async function answerOf(c: Context<AppEnv>): Promise<unknown> {
  const type = c.res.headers.get('content-type') ?? '';
  if (c.res.status >= 300 || !type.includes('application/json')) return undefined;
  try {
    return await c.res.clone().json();
  } catch {
    return undefined;
  }
}

async function countRefusal(c: Context<AppEnv>, op: OperationDef, body: unknown, outcome: string): Promise<void> {
  const named = (body as { username?: unknown } | undefined)?.username;
  try {
    await registry(c.env).recordRefusedSignIn({
      account: typeof named === 'string' ? named : null,
      action: op.id,
      clientAddress: c.get('clientIp'),
      outcome,
      requestId: c.get('requestId'),
    });
  } catch (error) {
    console.error('audit log write failed', op.id, String(error));
  }
}

export function auditTrail(op: OperationDef): MiddlewareHandler<AppEnv> {
  const signIn = SIGN_IN_OPERATIONS.has(op.id);
  return createMiddleware<AppEnv>(async (c, next) => {
    let thrown: unknown;
    try {
      await next();
    } catch (error) {
      thrown = error;
    }
    // Hono turns a handler's error into the onError answer and keeps it in c.error.
    const failure = thrown ?? c.error;
    const revived = failure === undefined ? undefined : reviveApiError(failure);
    const outcome = failure === undefined ? 'ok' : revived instanceof ApiError ? revived.code : 'internal_error';
    const answer = failure === undefined ? await answerOf(c) : undefined;
    const valid = c.get('validInput');
    const body = valid?.body;
    const targets: string[] = [];
    if (valid?.params) targets.push(...Object.values(valid.params as Record<string, string>));
    // For a sign-in the username is who acts, not a target.
    collectIds(valid?.query, !signIn, targets);
    collectIds(body, !signIn, targets);
    collectIds(answer, !signIn, targets);
    if (signIn && outcome !== 'ok') {
      // Anyone can be refused, without a key: count it, bounded, instead of writing an entry; a
      // throttled attempt (the throttle already answered it) costs nothing durable at all.
      if (outcome !== 'too_many_attempts') await countRefusal(c, op, body, outcome);
      if (thrown !== undefined) throw thrown;
      return;
    }
    let admin: string | null = c.get('admin')?.username ?? null;
    let claimed = false;
    if (signIn) {
      const named = (answer as { username?: unknown } | undefined)?.username;
      admin = typeof named === 'string' ? named : null;
      claimed = true;
    }
    const items = failure === undefined ? c.get('auditItems') : undefined;
    try {
      if (items) {
        // One entry per agent a bulk request acted on, each with that agent's own outcome.
        const entries = items.map((item) => ({
          admin,
          action: item.action,
          targets: item.targets,
          clientAddress: c.get('clientIp'),
          outcome: item.outcome,
          requestId: c.get('requestId'),
          ...(item.names && { names: item.names }),
        }));
        if (entries.length > 0) await registry(c.env).recordAudits(entries);
      } else
        await registry(c.env).recordAudit({
          admin,
          claimed,
          action: op.id,
          targets,
          clientAddress: c.get('clientIp'),
          outcome,
          requestId: c.get('requestId'),
          names: c.get('auditNames') ?? {},
          changes: failure === undefined ? (c.get('auditChanges') ?? []) : [],
        });
    } catch (error) {
      // The action has happened (or failed) either way; its answer is not withheld for the log.
      console.error('audit log write failed', op.id, String(error));
    }
    if (thrown !== undefined) throw thrown;
  });
}
