import type { Context } from 'hono';
import type { Env } from '../../../core/env.js';
import { channelObject } from '../../../core/stubs.js';
import type { AppEnv } from '../types.js';

/**
 * Channel stubs for one request, counted: the inbox index exists to keep this number independent
 * of how many quiet channels an agent has. Only the test worker observes the count (it reports it
 * in a response header so tests can prove it); the production bundle installs no observer.
 */
export class ChannelCalls {
  static observer: ((c: Context<AppEnv>, count: number) => void) | null = null;
  private count = 0;

  constructor(private readonly env: Env) {}

  channel(channelId: string) {
    this.count++;
    return channelObject(this.env, channelId);
  }

  report(c: Context<AppEnv>): void {
    ChannelCalls.observer?.(c, this.count);
  }
}

/** A channel object's typed stub. */
export type ChannelStub = ReturnType<ChannelCalls['channel']>;
