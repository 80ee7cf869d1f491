// Writes openapi.json from the operation registry (worker/openapi.ts). A workers test fails when
// the committed file differs from what the running worker serves.
import { writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const check = process.argv.includes('--check');
const out = await build({
  entryPoints: ['worker/openapi.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  write: false,
  logLevel: 'warning',
});
const module = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
const text = `${JSON.stringify(module.buildOpenApiDocument(), null, 2)}\n`;
if (check) {
  const { readFileSync } = await import('node:fs');
  if (readFileSync('openapi.json', 'utf8') !== text) {
    console.error('openapi.json is out of date: run `npm run openapi`.');
    process.exit(1);
  }
} else {
  writeFileSync('openapi.json', text);
}
