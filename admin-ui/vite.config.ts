import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { consoleRoutes } from './console-routes.js';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [consoleRoutes()],
  build: { outDir: '../dist/admin', emptyOutDir: true, target: 'es2022' },
});
