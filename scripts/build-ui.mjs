// Builds the admin console (admin-ui/) into dist/admin, which the worker serves as static assets.
import { execFileSync } from 'node:child_process';

execFileSync('npx', ['vite', 'build', '--config', 'admin-ui/vite.config.ts', '--logLevel', 'warn'], {
  stdio: 'inherit',
});
