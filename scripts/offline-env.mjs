/** Environment that keeps wrangler and Miniflare from calling home: every build and test uses it. */
export const OFFLINE_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_HIDE_BANNER: 'true',
};
Object.assign(process.env, OFFLINE_ENV);
