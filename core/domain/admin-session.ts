/**
 * Administrator sessions end after this much inactivity, and in any case after the absolute
 * lifetime (which is also the cookie's Max-Age).
 */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60_000;
