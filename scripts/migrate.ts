// `npm run db:migrate`: applies pending migrations (PGlite in DATA_DIR, or DATABASE_URL) and exits.
import { describeStartupError, openMigratedDatabase } from '../server/boot';

openMigratedDatabase()
  .then(async (database) => {
    console.log(`migrations applied (${database.kind})`);
    await database.close();
  })
  .catch((err: unknown) => {
    console.error(`error: ${describeStartupError(err)}`);
    process.exitCode = 1;
  });
