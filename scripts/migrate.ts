// `npm run db:migrate`: applies pending migrations (PGlite in DATA_DIR, or DATABASE_URL) and exits.
// First: on an unsupported Node this says so and exits, before any dependency loads.
import '../server/processes/node-version.js';
import { describeStartupError, openMigratedDatabase } from '../server/processes/boot';

openMigratedDatabase()
  .then(async (database) => {
    console.log(`migrations applied (${database.kind})`);
    await database.close();
  })
  .catch((err: unknown) => {
    console.error(`error: ${describeStartupError(err)}`);
    process.exitCode = 1;
  });
