import { SCOPE_TABLE } from '../modules/vocabulary/scopes';
import { EXAMPLE_ORIGIN } from './code-samples';

// The introduction of /v1/openapi.json, which /docs shows first: how to make the first calls,
// then how authentication works. The error catalogue (openapi.ts) comes after them: a reader
// opening /docs starts with what to do, not with forty error codes. Its examples run as written
// (test/sdk/examples.int.test.ts), at EXAMPLE_ORIGIN, which /docs replaces by its own origin;
// their lines are short, for a phone's width.

const BASE = EXAMPLE_ORIGIN;

const GETTING_STARTED = `## Getting started

1. Sign in to the dashboard and open **API keys** (\`/dashboard/keys\`). Create a key: the secret is shown once, so copy it.
   A **test** key (\`svc_test_sk_…\`) runs every agent on the offline \`sandbox\` model: nothing is charged.
2. Check the key:

\`\`\`sh
export KEY=svc_test_sk_…
curl ${BASE}/v1/agents \\
  -H "Authorization: Bearer $KEY"
# → 200 {"data":[],"hasMore":false}
\`\`\`

3. Create an agent:

\`\`\`sh
curl ${BASE}/v1/agents \\
  -H "Authorization: Bearer $KEY" \\
  -H 'Content-Type: application/json' \\
  -d '{
    "name": "Greeter",
    "model": "sandbox/echo",
    "instructions": "Be brief."
  }'
# → 201 {"id":"agt_…", …}
\`\`\`

4. Execute it (with the \`id\` it answered). \`"wait": true\` answers when the run ends; \`"stream": true\` answers with server-sent events; with neither,
   the answer is \`202\` with the queued execution, to poll at \`GET /v1/executions/{id}\` or follow at \`GET /v1/executions/{id}/stream\`:

\`\`\`sh
curl ${BASE}/v1/agents/agt_…/execute \\
  -H "Authorization: Bearer $KEY" \\
  -H 'Content-Type: application/json' \\
  -d '{"input": "hello", "wait": true}'
# → 200 {"id":"exe_…","status":"succeeded",
#   "output":"Echo: hello","conversationId":"conv_…", …}
\`\`\`

5. Continue the conversation: pass the \`conversationId\` of one execution to the next.

The same with the typed client, \`agent-automation-sdk\` (\`sdk/\` in the service's repository: every operation
below shows its call too):

\`\`\`ts
import { Client } from 'agent-automation-sdk';

const client = new Client({
  apiKey: process.env.KEY!,
  baseUrl: '${BASE}',
});
const agent = await client.agents.create({
  name: 'Greeter',
  model: 'sandbox/echo',
  instructions: 'Be brief.',
});
const run = await client.agents.execute(agent.id, {
  input: 'hello',
  wait: true,
});
console.log(run.output); // "Echo: hello"
const stream = client.agents.execute(agent.id, {
  input: 'hello again',
  stream: true,
  conversationId: run.conversationId,
});
for await (const event of stream) {
  if (event.type === 'text.delta') {
    process.stdout.write(event.delta);
  }
}
\`\`\`

Every list takes \`limit\` and a cursor (\`after\` = the previous page's \`nextCursor\`) and answers
\`{"data":[…],"hasMore":…,"nextCursor"?}\`. A POST may carry an \`Idempotency-Key\` header: a retry with the
same key and body answers what the first request answered, without doing it twice.`;

function authentication(): string {
  const scopes = SCOPE_TABLE.map((s) => `| \`${s.scope}\` | ${s.description} | ${s.isDefault ? 'yes' : 'no'} |`);
  return [
    '## Authentication',
    '',
    'Every `/v1` request (except this document) carries an API key: `Authorization: Bearer <key>`.',
    'A key belongs to one workspace and one environment, which its prefix tells: `svc_live_sk_…` sees and',
    'runs live data on the configured model providers; `svc_test_sk_…` sees only test data and runs on the',
    'offline `sandbox` model. One environment never sees the other\'s agents, executions or webhooks.',
    '',
    'A key holds scopes; a request outside them answers 403 `insufficient_scope`, naming the scope it needs.',
    'A revoked or expired key answers 401 at once (an open stream ends within seconds).',
    '',
    '| scope | allows | default |',
    '|---|---|---|',
    ...scopes,
    '',
    'Answers carry `X-Request-Id` and the rate-limit headers `X-RateLimit-Limit`, `X-RateLimit-Remaining` and',
    '`X-RateLimit-Reset`; a 429 says in `Retry-After` how many seconds to wait.',
  ].join('\n');
}

/** The document's introduction: what the API is, getting started, authentication, then `errors`. */
export function introduction(errors: string): string {
  return [
    'Create AI agents, execute them (queued, waited for or streamed) and follow their conversations.',
    GETTING_STARTED,
    authentication(),
    errors,
  ].join('\n\n');
}
