// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { until } from '../eventually';
import { startServer, UNLIMITED, type TestServer } from '../harness';
import { compile, defaultsCheck, documentExamples, fenced, installBuiltClient, runNode, runShell, type Example, type Ran } from './examples';

// Every example the docs show runs as written (docs/sdk.md, "Examples"): the curl and TypeScript
// of each operation in /v1/openapi.json (`x-codeSamples`, all that /docs shows beside each
// operation) and of its Getting started, against this live server with a real test key (so the
// sandbox model). curl runs in bash; the TypeScript is type-checked by one tsc run against the
// built client (installed as `agent-automation-sdk`), then run with node. The only changes made
// to an example: the origin (http://localhost:3000 → this server), the key, and the ids it names,
// each one that an example run before it made — so the examples run in the order of STORY.
//
// The same tsc run checks the README's and docs/sdk.md's TypeScript, and requests that leave out
// every field the API defaults (examples.ts `defaultsCheck`): the client must accept them.
//
// The server skips the URL guard's DNS lookup (WEBHOOK_ALLOW_PRIVATE_URLS, as under `npm run
// dev`): this machine may have no DNS, and example.com, the examples' host, resolves to a public
// address where it has.

const root = path.resolve(import.meta.dirname, '..', '..');

/** The operations in the order a reader could run them, each naming only what those before it made. */
const STORY = [
  'openapi', 'models-list',
  'keys-create', 'keys-list', 'keys-revoke',
  'agents-create', 'agents-list', 'agents-get', 'agents-update', 'agents-rotateToolSecret',
  'agents-listVersions', 'agents-retrieveVersion', 'agents-moveLabel', 'agents-removeLabel',
  // Both runs ask for a refund, whose tool waits for approval: the first is approved (then replayed), the second cancelled.
  'agents-execute', 'executions-list', 'executions-get', 'executions-trace', 'executions-stream', 'executions-approvals', 'executions-replay', 'executions-cancel',
  'conversations-list', 'conversations-get', 'conversations-delete',
  'schedules-create', 'schedules-list', 'schedules-get', 'schedules-update', 'schedules-run', 'schedules-delete',
  'webhooks-create', 'webhooks-list', 'webhooks-get', 'webhooks-update', 'webhooks-rotateSecret', 'webhooks-test', 'webhooks-deliveries', 'webhooks-resend', 'webhooks-delete',
  'events-list', 'events-get',
  'budgets-create', 'budgets-list', 'budgets-get', 'budgets-update', 'budgets-delete',
  'datasets-create', 'datasets-list', 'datasets-get', 'datasets-update',
  'datasets-createItem', 'datasets-items', 'datasets-item', 'datasets-updateItem',
  // The experiment runs its one item 10 times, one at a time: still under way when the next example cancels it.
  'experiments-create', 'experiments-cancel', 'experiments-list', 'experiments-get', 'experiments-results',
  'evalRules-create', 'evalRules-list', 'evalRules-update', 'evalRules-delete',
  'datasets-deleteItem', 'datasets-delete',
  'analytics-executions', 'analytics-requests', 'audit-list',
  'agents-delete',
];
/** Which of the ids made so far an example names, where not the first made: the cancelled run is the second. */
const PICK: Record<string, Record<string, number>> = { 'executions-cancel': { exe: 1 } };

/** An id a reader replaces: the document's example ids (`agt_01JD8X…`), the introduction's `agt_…`, the key. */
const PLACEHOLDER = /\b(agt|exe|conv|whk|dlv|evt|sch|bdg|dst|dsi|exp|evr|key|call)_(?:[0-9A-Z]{26}|…)|svc_test_sk_…/g;
/** Ids in answers, in order. */
const MADE = /\b(agt|exe|conv|whk|dlv|evt|sch|bdg|dst|dsi|exp|evr|key)_[0-9A-HJKMNP-TV-Z]{26}\b|\bcall_[0-9a-f]{24}\b/g;

let api: TestServer;
let dir: string;
let examples: Example[];
let compiled: string;
before(async () => {
  api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  const doc = (await api.request<OpenAPIObject>('GET', '/v1/openapi.json')).body;
  examples = documentExamples(doc);
  mkdirSync(path.join(root, '.tmp'), { recursive: true });
  dir = mkdtempSync(path.join(root, '.tmp', 'examples-'));
  await installBuiltClient(dir);
  const sources: Record<string, string> = { defaults: defaultsCheck(doc) };
  examples.filter((e) => e.lang === 'ts').forEach((e) => (sources[e.id] = e.source));
  for (const file of ['README.md', 'docs/sdk.md']) fenced(readFileSync(path.join(root, file), 'utf8'), 'ts').forEach((s, i) => (sources[`${file.replace(/\W/g, '-')}-${i}`] = s));
  compiled = await compile(dir, sources);
});
after(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs each story of `lang` (Getting started's, then the operations' in STORY's order), each
 * example with the ids the ones before it in its story made put in place of its own.
 */
async function runStories(lang: 'sh' | 'ts', exec: Exec): Promise<Map<string, Ran>> {
  const results = new Map<string, Ran>();
  for (const story of stories(lang)) await runStory(story, exec, results);
  return results;
}

type Exec = (e: Example, replace: (source: string) => string, key: string) => Promise<Ran>;

/** A story runs in a workspace of its own, so its lists show only what it made. */
async function runStory(story: Example[], exec: Exec, results: Map<string, Ran>): Promise<void> {
  const { key } = await api.seed.key({ ...UNLIMITED });
  const made = new Map<string, string[]>();
  for (const example of story) {
    if (example.id === 'webhooks-deliveries') await deliveryMade(key, made.get('whk')?.[0]);
    // Comments are left as they are: `# → 201 {"id":"agt_…"}` shows an answer, it names nothing.
    const replace = (source: string) =>
      source
        .replaceAll('http://localhost:3000', api.url)
        .split('\n')
        .map((line) => (/^\s*(#|\/\/)/.test(line) ? line : line.replace(PLACEHOLDER, (_match: string, prefix: string | undefined) => {
          if (!prefix) return key;
          const id = made.get(prefix)?.[PICK[example.id]?.[prefix] ?? 0];
          assert.ok(id, `${example.lang} ${example.id} names a ${prefix}_ id that no example before it made`);
          return id;
        })))
        .join('\n');
    const ran = await exec(example, replace, key).catch((err: { stdout?: string; stderr?: string }) => {
      assert.fail(`${example.lang} ${example.id} failed:\n${replace(example.source)}\n${err.stdout ?? ''}${err.stderr ?? String(err)}`);
    });
    results.set(example.id, ran);
    for (const answer of ran.answers) assert.ok(answer.status >= 200 && answer.status < 300, `${example.lang} ${example.id} was answered ${answer.status}: ${answer.body}`);
    assert.ok(ran.answers.length > 0, `${example.lang} ${example.id} got no answer`);
    // The document itself holds example ids, which no example made.
    if (example.id === 'openapi') continue;
    for (const m of ran.answers.map((a) => a.body).join('\n').matchAll(MADE)) {
      const prefix = m[1] ?? 'call';
      const ids = made.get(prefix) ?? made.set(prefix, []).get(prefix)!;
      if (!ids.includes(m[0])) ids.push(m[0]);
    }
  }
}

/** The test event's delivery is made by the relay, a moment after `POST …/test` answered. */
async function deliveryMade(key: string, webhookId: string | undefined): Promise<void> {
  await until('the test delivery exists', async () => {
    const res = await api.request<{ data: unknown[] }>('GET', `/v1/webhooks/${webhookId}/deliveries`, { key });
    return res.status === 200 && res.body.data.length > 0;
  });
}

/** The examples of `lang`: Getting started's in order, and the operations' in STORY's. */
function stories(lang: 'sh' | 'ts'): Example[][] {
  const mine = examples.filter((e) => e.lang === lang);
  const guide = mine.filter((e) => e.id.startsWith('guide-'));
  const operations = mine.filter((e) => !e.id.startsWith('guide-'));
  assert.ok(guide.length > 0, `Getting started shows ${lang}`);
  assert.deepEqual(operations.map((e) => e.id).sort(), [...STORY].sort(), 'every operation has its example, placed in STORY');
  return [guide, STORY.map((id) => operations.find((e) => e.id === id)!)];
}

const body = (ran: Ran | undefined, i = 0) => JSON.parse(ran!.answers[i]!.body) as Record<string, unknown>;

describe('the examples of the docs', () => {
  it('type-check against the built client: the document’s, the README’s, docs/sdk.md’s, and requests without their defaulted fields', () => {
    assert.ok(compiled === '', `tsc:\n${compiled}`);
    assert.ok(examples.filter((e) => e.lang === 'ts').length > STORY.length, 'the operations’ and the introduction’s TypeScript');
  });

  it('curl: each runs in a shell, as written', async () => {
    const ran = await runStories('sh', (e, replace, key) => runShell(dir, replace(e.source), { KEY: key }));
    assert.match(ran.get('guide-2')!.out, /"output":"Echo: hello"/);
    assert.equal(body(ran.get('agents-execute')).status, 'requires_action');
    assert.equal(body(ran.get('executions-approvals')).status, 'succeeded');
    assert.equal(body(ran.get('executions-cancel')).status, 'cancelled');
  });

  it('TypeScript: each runs with node against the built client, as written', async () => {
    assert.ok(compiled === '', 'the examples compile');
    const ran = await runStories('ts', (e, replace, key) => runNode(dir, e.id, replace, { KEY: key }));
    assert.match(ran.get('guide-0')!.out, /Echo: hello/);
    assert.match(ran.get('agents-execute')!.out, /^requires_action null$/m);
    assert.match(ran.get('agents-execute')!.out, /tool\.approval_requested/);
    assert.match(ran.get('executions-approvals')!.out, /^succeeded /m);
    assert.equal(body(ran.get('executions-cancel')).status, 'cancelled');
  });
});
