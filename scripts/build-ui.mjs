// Builds the admin console (admin-ui/) into dist/admin, which the worker serves as static assets:
// first the language modules from the translations (admin-ui/xliff -> admin-ui/src/generated),
// then the Vite bundle. lit-localize resolves some paths against the working directory, so it
// runs inside admin-ui/.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const run = (args, cwd = '.') => execFileSync('npx', args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });

run(['lit-localize', 'build', '--config', 'lit-localize.json'], 'admin-ui');
run(['vite', 'build', '--config', 'admin-ui/vite.config.ts', '--logLevel', 'warn']);

// /favicon.ico, which browsers and tools ask for on their own: an ICO wrapping the 32 px PNG icon
// (PNG entries are valid ICO since Windows Vista). Without it that path would be a 404.
const png = readFileSync('admin-ui/public/favicon-32.png');
const ico = Buffer.alloc(22);
ico.writeUInt16LE(0, 0); // reserved
ico.writeUInt16LE(1, 2); // type: icon
ico.writeUInt16LE(1, 4); // one image
ico.writeUInt8(32, 6); // width
ico.writeUInt8(32, 7); // height
ico.writeUInt8(0, 8); // no palette
ico.writeUInt8(0, 9); // reserved
ico.writeUInt16LE(1, 10); // colour planes
ico.writeUInt16LE(32, 12); // bits per pixel
ico.writeUInt32LE(png.length, 14); // image size
ico.writeUInt32LE(22, 18); // image offset
writeFileSync('dist/admin/favicon.ico', Buffer.concat([ico, png]));
