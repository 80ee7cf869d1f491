/**
 * The launcher's start-up leaves most of its memory behind as garbage: importing Miniflare
 * (3.9 MB of source, undici, zod schemas) and assembling workerd's configuration (the 2.3 MB
 * bundle read, encoded and copied into Cap'n Proto) allocate far more than the server keeps. V8
 * sizes its young generation to that burst (up to 2 × 16 MB) and, with nothing allocating once the
 * server is idle, seldom collects again: the launcher idled at 170-200 MB resident, of which about
 * 30 MB is live heap.
 *
 * So during start-up the young generation stays at its initial size (the growth factor is read
 * each time V8 considers growing it, so it applies at run time, and it goes back to V8's default
 * when the server is up: load can grow it as before), and once the server is up one full
 * collection returns the start-up garbage. `gc` comes from a context created while V8's
 * expose-gc flag is set, the flag is cleared at once, so no code the launcher loads sees a
 * global `gc`.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's default (`node --v8-options`), unchanged for years. */
const DEFAULT_GROWTH_FACTOR = 2;

export interface StartupMemory {
  /** Call once the server is up: restores the growth factor and collects the start-up garbage. */
  settle(): void;
}

export function holdStartupMemory(): StartupMemory {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  v8.setFlagsFromString('--expose-gc');
  let gc: unknown;
  try {
    gc = runInNewContext('gc');
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  let settled = false;
  return {
    settle() {
      if (settled) return;
      settled = true;
      v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
      if (typeof gc === 'function') gc();
    },
  };
}
