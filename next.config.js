// @ts-check
// Validates the environment when the config loads (build and start fail fast on bad values).
import './server/platform/env.js';

/** @type {import('next').NextConfig} */
const config = {
  // Packages that hold process-wide state or native code stay outside the bundles, so each
  // exists once per process (docs/platform-notes.md, "Next evaluates our modules several times in
  // one process").
  serverExternalPackages: [
    '@electric-sql/pglite',
    'postgres',
    'pg-boss',
    '@node-rs/argon2',
    'pino',
    'ioredis',
    'rate-limiter-flexible',
    'trpc-to-openapi',
    // Worker threads started from a file path (server/modules/tools/schema-pool.ts).
    'piscina',
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  // Type checking is `npm run typecheck`'s job (tsc over the whole project, app/ included; CI runs
  // it before the build): `next build` checking the types again cost 13.5 s of every build, the
  // first `npm start` of a fresh clone's included. A type error still fails CI.
  typescript: { ignoreBuildErrors: true },
};

export default config;
