import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './durable-objects/agent/schema.ts',
  out: './migrations/agent',
});
