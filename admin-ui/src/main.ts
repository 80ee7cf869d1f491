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
const app = document.createElement('sb-app');
// The skip link's target must be found in the document (an ID inside the shadow root is not: a
// screen reader and axe's skip-link rule look it up with document.getElementById); sb-app moves
// focus on to its <main>.
app.id = 'content';
document.body.append(app);
