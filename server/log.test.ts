import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { scrubError } from './log';

describe('logged errors', () => {
  it('keep the SQL and the database message but never the bound values', () => {
    const hash = 'a'.repeat(64);
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "api_keys_hash_key"'), {
      query: 'insert into "api_keys" ("hash") values ($1)',
      parameters: [hash],
      args: [hash],
    });
    const err = Object.assign(new Error(`Failed query: insert into "api_keys" ("hash") values ($1)\nparams: ${hash}`), {
      query: 'insert into "api_keys" ("hash") values ($1)',
      params: [hash],
      cause,
    });
    const out = JSON.stringify(scrubError(pino.stdSerializers.errWithCause(err)));
    assert.ok(!out.includes(hash), out);
    assert.match(out, /insert into/);
    assert.match(out, /duplicate key value/);
  });
});
