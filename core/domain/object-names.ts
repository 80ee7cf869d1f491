/**
 * The names of the three singleton Durable Objects. Kept apart from `core/stubs.ts` (which needs
 * the Workers types) so the Node launcher can reach the same objects through Miniflare.
 */
export const SINGLETON_NAMES = { registry: 'registry', retention: 'retention', groups: 'groups' } as const;
