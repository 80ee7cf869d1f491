import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './durable-objects/channel/schema.ts',
  out: './migrations/channel',
});
