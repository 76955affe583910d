// What a failed statement was, on either database: postgres.js and PGlite put the SQLSTATE on the
// error as `code`; drizzle wraps it (DrizzleQueryError) with the driver's error as `cause`.

export const sqlState = (err: unknown): string | undefined => {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
};

/** A unique or primary key was violated (SQLSTATE 23505): the row exists already. */
export const isUniqueViolation = (err: unknown): boolean => sqlState(err) === '23505';
