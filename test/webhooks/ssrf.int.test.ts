// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { expectError, expectStatus } from '../expect';
import { startServer, UNLIMITED, type SeededKey, type TestServer } from '../harness';
import { setResolverForTests, type Resolver } from '../../server/platform/net/url-guard';
import { createWebhook, deliveries, eventually } from './helpers';
import { startReceiver, type Receiver } from './receiver';

// The SSRF guard on webhooks (docs/webhooks.md, "The contract" and "SSRF"), with private URLs NOT
// allowed (the production default): every spelling of a non-public address is refused at create and
// update (400, param `url`, nothing written), and again at each delivery, at connect time: a name
// that resolved to a public address at create and to 127.0.0.1 later (DNS rebinding) reaches
// nothing.
// DNS is the outside world: a fake resolver stands in for it in this process.

const answers: Record<string, string> = {
  'public.example.com': '93.184.215.14',
  'rebind.example.com': '127.0.0.1',
  'metadata-alias.example.com': '169.254.169.254',
  'mapped.example.com': '::ffff:10.0.0.1',
};
const resolver: Resolver = async (hostname) => {
  const address = answers[hostname];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

let api: TestServer;
let o: SeededKey;
let receiver: Receiver;
before(async () => {
  setResolverForTests(resolver);
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_SCHEDULE: '60' } });
  o = await api.seed.key({ ...UNLIMITED });
  receiver = await startReceiver();
});
after(async () => {
  setResolverForTests(null);
  await receiver?.close();
  await api?.close();
});

const NAME_REFUSED = new RegExp(
  "^'url' has a host that does not resolve to an allowed address\\. This server refuses loopback, private and link-local " +
    'addresses; to use one in development, run it with WEBHOOK_ALLOW_PRIVATE_URLS=true \\(the default under `npm run dev`\\)$',
);

const REFUSED: [string, RegExp][] = [
  ['http://127.0.0.1/hook', /loopback/],
  ['http://127.1/hook', /loopback/],
  ['http://2130706433/hook', /loopback/],
  ['http://0x7f000001/hook', /loopback/],
  ['http://0x7f.1/hook', /loopback/],
  ['http://0177.0.0.1/hook', /loopback/],
  ['http://0.0.0.0/hook', /unspecified/],
  ['http://[::1]/hook', /loopback/],
  ['http://[::ffff:127.0.0.1]/hook', /loopback/],
  ['http://[::ffff:7f00:1]/hook', /loopback/],
  ['http://10.0.0.1/hook', /private/],
  ['http://172.16.5.4/hook', /private/],
  ['http://192.168.1.1/hook', /private/],
  ['http://169.254.169.254/latest/meta-data', /link-local/],
  ['http://100.64.0.1/hook', /carrier-grade NAT/],
  ['http://[fd00::1]/hook', /private/],
  ['http://[fe80::1]/hook', /link-local/],
  ['http://[::ffff:169.254.169.254]/hook', /link-local/],
  ['http://localhost:3000/hook', /not public/],
  ['http://LOCALHOST./hook', /not public/],
  ['http://metadata.google.internal/computeMetadata/v1/', /not public/],
  ['http://intranet/hook', /not public/],
  // Names: one message whatever DNS answered (a private address, none at all), and no address;
  // it ends with the setting that allows private addresses, the same for all.
  ['http://rebind.example.com/hook', NAME_REFUSED],
  ['http://metadata-alias.example.com/hook', NAME_REFUSED],
  ['http://mapped.example.com/hook', NAME_REFUSED],
  ['http://nowhere.example.com/hook', NAME_REFUSED],
  ['http://user:pass@public.example.com/hook', /credentials/],
  ['file:///etc/passwd', /http or https/],
  ['gopher://public.example.com/', /http or https/],
];

async function count(): Promise<number> {
  const [row] = await api.query<{ n: number }>(sql`select count(*)::int as n from webhooks where workspace_id = ${o.workspace.id}`);
  return row!.n;
}

describe('refused at create and at update', () => {
  for (const [url, why] of REFUSED) {
    it(`refuses ${url}`, async () => {
      const before = await count();
      const res = await api.request('POST', '/v1/webhooks', { key: o.key, body: { url, events: ['*'] } });
      const error = expectError(res, 400, 'invalid_parameter', 'url');
      assert.match(error.message, why);
      assert.equal(await count(), before);
    });
  }

  it('refuses the same spellings in a PATCH, and keeps the URL it had', async () => {
    const hook = await createWebhook(api, o.key, { url: 'http://public.example.com/hook', enabled: false });
    for (const [url] of REFUSED.slice(0, 8)) {
      expectError(await api.request('PATCH', `/v1/webhooks/${hook.id}`, { key: o.key, body: { url } }), 400, 'invalid_parameter', 'url');
    }
    const got = await api.request<{ url: string }>('GET', `/v1/webhooks/${hook.id}`, { key: o.key });
    assert.equal(got.body.url, 'http://public.example.com/hook');
  });

  it('live mode needs https', async () => {
    const live = await api.seed.key({ workspace: o.workspace, environment: 'live' });
    const res = await api.request('POST', '/v1/webhooks', { key: live.key, body: { url: 'http://public.example.com/hook', events: ['*'] } });
    assert.match(expectError(res, 400, 'invalid_parameter', 'url').message, /must use https/);
    expectStatus(await api.request('POST', '/v1/webhooks', { key: live.key, body: { url: 'https://public.example.com/hook', events: ['*'], enabled: false } }), 201);
  });
});

describe('refused again at each delivery', () => {
  it('a name that resolves to 127.0.0.1 by the time of delivery (DNS rebinding) reaches nothing', async () => {
    answers['later.example.com'] = '93.184.215.14';
    const hook = await createWebhook(api, o.key, { url: `http://later.example.com:${receiver.port}/hook`, events: ['agent.created'] });
    answers['later.example.com'] = '127.0.0.1';
    expectStatus(await api.request('POST', '/v1/agents', { key: o.key, body: { name: 'x' } }), 201);
    const [d] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => (ds[0]?.attempts.length ?? 0) >= 1);
    assert.equal(d!.attempts[0]!.error, 'The endpoint URL has a host that does not resolve to an allowed address');
    assert.equal(d!.attempts[0]!.statusCode, null);
    // The attempt is recorded after it ended: a request it had made would have arrived before.
    assert.equal(receiver.received.length, 0);
  });

  it('a stored URL that is an IP literal of a private address (written before a config change) reaches nothing', async () => {
    const hook = await createWebhook(api, o.key, { url: 'http://public.example.com/hook', events: ['agent.created'] });
    await api.query(sql`update webhooks set url = ${`http://127.0.0.1:${receiver.port}/hook`} where id = ${hook.id}`);
    expectStatus(await api.request('POST', '/v1/agents', { key: o.key, body: { name: 'y' } }), 201);
    const [d] = await eventually(() => deliveries(api, o.key, hook.id), (ds) => (ds[0]?.attempts.length ?? 0) >= 1);
    assert.match(d!.attempts[0]!.error!, /loopback address/);
    assert.equal(receiver.received.length, 0);
  });
});
