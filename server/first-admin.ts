/**
 * The first administrator (api-v1.md "Running it"): with SWITCHBOARD_ADMIN_PASSWORD the first
 * start creates `admin`; without it, each start while no administrator exists prints a fresh
 * one-time setup link. The token rides in the URL fragment, which browsers never send, so it
 * stays out of request lines and proxy logs. Both go through the RegistryDO's RPC methods from
 * the launcher, not through an HTTP route anyone could call.
 */
import type { RegistryRpc } from './worker-runtime.js';

export const FIRST_ADMIN_USERNAME = 'admin';

export type FirstAdminOutcome =
  | { kind: 'exists' }
  | { kind: 'created'; username: string }
  | { kind: 'setup-link'; link: string };

export async function ensureFirstAdmin(
  registry: RegistryRpc,
  password: string | undefined,
  publicUrl: string,
): Promise<FirstAdminOutcome> {
  if (password !== undefined) {
    const created = await registry.bootstrapAdmin(FIRST_ADMIN_USERNAME, password);
    return created ? { kind: 'created', username: FIRST_ADMIN_USERNAME } : { kind: 'exists' };
  }
  const token = await registry.issueSetupToken();
  if (token === null) return { kind: 'exists' };
  return { kind: 'setup-link', link: `${publicUrl}/setup#token=${token}` };
}
