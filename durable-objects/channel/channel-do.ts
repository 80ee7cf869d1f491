import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../worker/env.js';

/** One per channel. The messaging engine (issue 3) fills this in. */
export class ChannelDO extends DurableObject<Env> {}
