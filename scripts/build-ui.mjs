// Builds the admin console (admin-ui/) into dist/admin, which the worker serves as static assets:
// first the language modules from the translations (admin-ui/xliff -> admin-ui/src/generated),
// then the Vite bundle. lit-localize resolves some paths against the working directory, so it
// runs inside admin-ui/.
import { execFileSync } from 'node:child_process';

const run = (args, cwd = '.') => execFileSync('npx', args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });

run(['lit-localize', 'build', '--config', 'lit-localize.json'], 'admin-ui');
run(['vite', 'build', '--config', 'admin-ui/vite.config.ts', '--logLevel', 'warn']);
