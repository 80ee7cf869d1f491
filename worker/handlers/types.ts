import type { Context } from 'hono';
import type { OperationId, Operations } from '../../core/contract/index.js';
import type { OperationDef, OperationInput, OperationOutput } from '../../core/contract/registry.js';
import type { FieldChange } from '../../core/domain/audit-changes.js';
import type { AuthedAgent } from '../../core/domain/principals.js';
import type { Env } from '../../core/env.js';
import type { PendingChannel, SessionView } from '../../core/rpc.js';
import type { BodyRelay } from '../body/index.js';
import type { InProcessCall } from '../in-process.js';

/** The signed-in administrator: the session, with the keyed hash of its token (to end it on logout). */
export type AdminPrincipal = SessionView;

export interface AppVariables {
  requestId: string;
  clientIp: string;
  agent?: AuthedAgent;
  admin?: AdminPrincipal;
  /** Agent routes: the channel/group IDs named in the path or query, and whether the agent's index knows each. */
  channelAccess?: ReadonlyMap<string, boolean>;
  /** A JSON body, strictly decoded and parsed (body/json.ts); the route's schema validates it. */
  jsonBody?: unknown;
  /** Why the JSON body was refused; thrown once the path and query are validated. */
  jsonBodyError?: unknown;
  /**
   * The operation's input as its schemas validated it (set by worker/app.ts once the path and
   * query passed, the body added once it passed too): the only source of audit targets.
   */
  validInput?: { params: unknown; query: unknown; body: unknown };
  /**
   * Set by a handler that acts on many objects (bulk agent actions, imports): the audit trail
   * writes one entry per item instead of one for the request, under the action of the
   * one-object operation it amounts to (deleteAgent, createAgent, …), so the log reads the same.
   */
  auditItems?: readonly { action: string; targets: string[]; outcome: string; names?: Record<string, string> }[];
  /** Set by a handler that changed settings, an agent or a host: each field's old and new value. */
  auditChanges?: FieldChange[];
  /** Set by a handler that deleted something: its name, which the registry no longer knows. */
  auditNames?: Record<string, string>;
  /** The request body's relay (body/drain.ts), for handlers that read a large body directly. */
  bodyRelay?: BodyRelay;
  /** The body as read during authentication (middleware/auth-extras.ts): its value, or its refusal for later. */
  earlyBody?: { value: unknown } | { error: unknown };
  /** A tool call of `/mcp`, made in-process after that request was authenticated (worker/in-process.ts). */
  inProcess?: InProcessCall;
  /** GET /inbox, POST /inbox/claim: the channels with a pending hint, answered by the authentication call. */
  pendingChannels?: readonly PendingChannel[];
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };

type Principal<O extends OperationDef> = O['role'] extends 'agent'
  ? { agent: AuthedAgent }
  : O['role'] extends 'admin'
    ? { admin: AdminPrincipal }
    : unknown;

export type HandlerContext<O extends OperationDef> = {
  input: OperationInput<O>;
  env: Env;
  requestId: string;
  clientIp: string;
  /** The Hono context, for the few handlers that set cookies or stream bytes. */
  c: Context<AppEnv>;
} & Principal<O>;

export type Handler<O extends OperationDef> = (ctx: HandlerContext<O>) => Promise<OperationOutput<O>>;

/** One handler per registry operation: a missing or extra handler is a type error. */
export type HandlerMap = { [K in OperationId]: Handler<Operations[K]> };
