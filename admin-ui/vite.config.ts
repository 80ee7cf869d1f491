import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  build: { outDir: '../dist/admin', emptyOutDir: true, target: 'es2022' },
});
