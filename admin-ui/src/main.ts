/**
 * The console's entry point: picks the language first, so the first paint is already in the
 * administrator's language, then mounts the shell.
 */
import { startLocalization } from './localization.js';

await startLocalization().catch((error: unknown) => {
  // A language module that fails to load must not keep the console from opening in English.
  console.error('could not load the interface language', error);
});
await import('./components/sb-app.js');
document.body.append(document.createElement('sb-app'));
