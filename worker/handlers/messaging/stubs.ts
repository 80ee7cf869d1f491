import type { Context } from 'hono';
import type { Env } from '../../env.js';
import type { AppEnv } from '../types.js';

export function agentIndex(env: Env, agentId: string) {
  return env.AGENT.get(env.AGENT.idFromName(agentId));
}

/**
 * Channel stubs for one request, counted: the inbox index exists to keep this number independent
 * of how many quiet channels an agent has, and with TEST_ROUTES=1 the count is reported in a
 * response header so tests can prove it.
 */
export class ChannelCalls {
  private count = 0;

  constructor(private readonly env: Env) {}

  channel(channelId: string) {
    this.count++;
    return this.env.CHANNEL.get(this.env.CHANNEL.idFromName(channelId));
  }

  report(c: Context<AppEnv>): void {
    if (this.env.TEST_ROUTES === '1') c.header('x-switchboard-channel-calls', String(this.count));
  }
}
