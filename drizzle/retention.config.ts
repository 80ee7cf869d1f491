import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './durable-objects/retention/schema.ts',
  out: './migrations/retention',
});
