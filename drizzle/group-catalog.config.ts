import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './durable-objects/group-catalog/schema.ts',
  out: './migrations/group-catalog',
});
