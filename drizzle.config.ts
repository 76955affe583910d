import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes SQL migrations from db/schema into db/migrations.
// They are applied in code at start-up (db/migrate.ts), on PGlite and PostgreSQL alike.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
});
