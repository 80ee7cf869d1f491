import type { Env } from './env.js';

/** The one retention object: upload admission, staged objects, channel catalog, cleanup runs. */
export function retention(env: Env) {
  return env.RETENTION.get(env.RETENTION.idFromName('retention'));
}
