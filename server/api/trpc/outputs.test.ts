import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { settleOutputChecks } from './outputs';

const t = initTRPC.create();
const view = z.object({ id: z.string(), name: z.string().nullable() });

/** A fresh router each time: settling changes its procedures in place. */
const build = () =>
  t.router({
    exact: t.procedure.output(view).query(() => ({ id: 'agt_1', name: null })),
    extra: t.procedure.output(view).query(() => ({ id: 'agt_1', name: 'a', secret: 'sk_live_x' }) as z.infer<typeof view>),
    wrong: t.procedure.output(view).query(() => ({ id: 1, name: 'a' }) as unknown as z.infer<typeof view>),
    none: t.procedure.query(() => 'no schema'),
  });

const failure = async (call: () => Promise<unknown>) => {
  const err = await call().then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof TRPCError);
  return err;
};

describe('output checks', () => {
  it('strict: an output equal to its parse passes; a field the schema would strip or a value it refuses is our bug (500)', async () => {
    const router = build();
    settleOutputChecks(router, 'strict');
    const caller = t.createCallerFactory(router)({});
    assert.deepEqual(await caller.exact(), { id: 'agt_1', name: null });
    assert.equal(await caller.none(), 'no schema');
    const extra = await failure(() => caller.extra());
    assert.equal(extra.code, 'INTERNAL_SERVER_ERROR');
    assert.match(String((extra.cause as Error).message), /extra: the output differs from its schema's parse/);
    assert.equal((await failure(() => caller.wrong())).code, 'INTERNAL_SERVER_ERROR');
  });

  it('trust: the output is answered as the procedure returned it, with no parse', async () => {
    const router = build();
    settleOutputChecks(router, 'trust');
    const caller = t.createCallerFactory(router)({});
    assert.deepEqual(await caller.exact(), { id: 'agt_1', name: null });
    assert.deepEqual(await caller.extra(), { id: 'agt_1', name: 'a', secret: 'sk_live_x' });
  });

  it('a router whose procedures have no output middleware is refused (tRPC built them otherwise)', () => {
    assert.throws(() => settleOutputChecks(t.router({ none: t.procedure.query(() => 1) }), 'trust'), /no procedure has an output middleware/);
  });
});
