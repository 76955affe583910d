import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { scrubError } from './log';

const serialize = (err: Error) => JSON.stringify(scrubError(pino.stdSerializers.errWithCause(err)));

describe('logged errors', () => {
  it('keep the SQL and the database message but never the bound values', () => {
    const hash = 'a'.repeat(64);
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "api_keys_hash_key"'), {
      query: 'insert into "api_keys" ("hash") values ($1)',
      parameters: [hash],
      args: [hash],
      detail: `Key (hash)=(${hash}) already exists.`,
      code: '23505',
    });
    const err = Object.assign(new Error(`Failed query: insert into "api_keys" ("hash") values ($1)\nparams: ${hash}`), {
      query: 'insert into "api_keys" ("hash") values ($1)',
      params: [hash],
      cause,
    });
    const out = serialize(err);
    assert.ok(!out.includes(hash), out);
    assert.match(out, /insert into/);
    assert.match(out, /duplicate key value violates unique constraint \\"api_keys_hash_key\\"/);
    assert.match(out, /23505/);
  });

  it('drop the CONTEXT, DETAIL and HINT in which PostgreSQL repeats the input', () => {
    const input = 'SECRET-INPUT-TEXT';
    const err = Object.assign(new Error('invalid input syntax for type json'), {
      code: '22P02',
      detail: 'Unicode low surrogate must follow a high surrogate.',
      where: `JSON data, line 1: {"content":"${input} \\ud800...\nunnamed portal parameter $6 = '...'`,
      hint: `Did you mean ${input}?`,
      internal_query: `select '${input}'`,
      internalQuery: `select '${input}'`,
      routine: 'json_errsave_error',
    });
    const out = serialize(err);
    assert.ok(!out.includes(input), out);
    assert.match(out, /invalid input syntax for type json/);
    assert.match(out, /json_errsave_error/);
  });

  it('mask the value a data exception quotes in its message and stack, and string literals in the SQL', () => {
    const input = 'SECRET "quoted" INPUT';
    const err = Object.assign(new Error(`invalid input syntax for type integer: "${input}"`), {
      code: '22P02',
      query: `select 1 where name = 'literal ${input}'`,
    });
    const out = serialize(err);
    assert.ok(!out.includes('SECRET') && !out.includes('INPUT'), out);
    assert.match(out, /invalid input syntax for type integer: \\"…\\"/);
    assert.match(out, /select 1 where name = '…'/);
  });
});
