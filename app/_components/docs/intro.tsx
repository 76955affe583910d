import type { ReactNode } from 'react';
import { SCOPE_TABLE } from '@/server/keys/scopes';
import { PLAN_LIMITS } from '@/server/ratelimit/plans';
import { CodeBlock } from './fields-table';

// The conventions every endpoint shares (DESIGN.md 3, 4 and 8; reference.md 5, 7 and 8).

export const INTRO_SECTIONS = [
  { id: 'authentication', title: 'Authentication' },
  { id: 'errors', title: 'Errors' },
  { id: 'pagination', title: 'Pagination' },
  { id: 'rate-limits', title: 'Rate limits' },
] as const;

const ERRORS: [string, string, string, string][] = [
  ['400', 'invalid_request_error', 'missing_required_field, invalid_parameter, unknown_parameter, invalid_json, invalid_cursor, parameter_conflict', 'Bad input; param names the field (dotted path for nested fields).'],
  ['401', 'authentication_error', 'missing_api_key, invalid_api_key, api_key_revoked, api_key_expired', 'No key, or an unknown, revoked or expired one.'],
  ['403', 'permission_error', 'insufficient_scope, environment_mismatch', 'The key lacks the scope (the message names it) or acts beyond its environment.'],
  ['404', 'invalid_request_error', 'resource_not_found, route_not_found', "Unknown id (including another workspace's or environment's), or unknown path."],
  ['405', 'invalid_request_error', 'method_not_allowed', 'Known path, wrong method; see the Allow header.'],
  ['409', 'invalid_request_error', 'execution_not_cancellable, conversation_busy, idempotency_conflict', 'The resource is in a conflicting state.'],
  ['413 / 415', 'invalid_request_error', 'request_too_large, unsupported_media_type', 'Body over 1 MiB, or not application/json.'],
  ['429', 'rate_limit_error', 'rate_limit_exceeded', 'Too many requests; wait Retry-After seconds.'],
  ['500', 'api_error', 'internal_error', 'Something unexpected; quote the requestId.'],
];

const c = (text: string) => <code className="rounded bg-slate-100 px-1 font-mono text-[0.85em] text-slate-800">{text}</code>;

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section id={id} className="scroll-mt-6 space-y-4 border-t border-slate-200 pt-10">
      <h2 className="text-2xl font-semibold text-slate-900">{title}</h2>
      <div className="space-y-4 text-slate-700">{children}</div>
    </section>
  );
}

function Table({ head, rows }: { head: string[]; rows: ReactNode[][] }) {
  return (
    <div className="overflow-x-auto rounded-lg ring-1 ring-slate-200">
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
          <tr>
            {head.map((h) => (
              <th key={h} scope="col" className="px-3 py-2">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white">
          {rows.map((r, i) => (
            <tr key={i} className="align-top">
              {r.map((cell, j) => (
                <td key={j} className="px-3 py-2">
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const number = (n: number) => n.toLocaleString('en-US');

export function IntroSections() {
  return (
    <>
      <Section id="authentication" title="Authentication">
        <p>
          Every request carries an API key in the {c('Authorization')} header. Create keys in the dashboard; the secret is shown once. Keys
          never go in the query string.
        </p>
        <CodeBlock label="Header">{'Authorization: Bearer svc_live_sk_…'}</CodeBlock>
        <Table
          head={['Prefix', 'Environment', 'Use']}
          rows={[
            [c('svc_live_sk_…'), 'Live', 'Production: real data, billed usage.'],
            [c('svc_test_sk_…'), 'Test', 'Development and CI: sandbox data, never charged.'],
          ]}
        />
        <p>
          A key only ever sees its own workspace and environment. Each key holds scopes; a request needing a scope the key lacks gets{' '}
          {c('403 insufficient_scope')}. Scopes marked default are granted when {c('scopes')} is omitted on creation.
        </p>
        <Table
          head={['Scope', 'Allows', 'Default']}
          rows={SCOPE_TABLE.map((s) => [c(s.scope), s.description, s.isDefault ? 'Yes' : 'No'])}
        />
      </Section>

      <Section id="errors" title="Errors">
        <p>
          Errors use conventional HTTP statuses and always have the same JSON body. Every response carries {c('X-Request-Id')}, the same
          id as {c('error.requestId')}.
        </p>
        <CodeBlock label="Error envelope">
          {JSON.stringify(
            { error: { type: 'invalid_request_error', code: 'missing_required_field', message: "Missing required field: 'name'", param: 'name', requestId: 'req_01JD8X3ZQ2N6W5V4T3S2R1P0MK' } },
            null,
            2,
          )}
        </CodeBlock>
        <Table head={['Status', 'Type', 'Codes', 'When']} rows={ERRORS.map(([s, t, codes, when]) => [c(s), c(t), <span key="c" className="font-mono text-xs">{codes}</span>, when])} />
        <p className="text-sm">
          Checks run in this order: route, authentication (401), rate limit (429), scope (403), input (400), lookup (404).
        </p>
      </Section>

      <Section id="pagination" title="Pagination">
        <p>
          List endpoints are ordered newest first and use cursors. Pass {c('limit')} (1–100, default 20), and either {c('after')} (older
          items) or {c('before')} (newer items) — not both.
        </p>
        <Table
          head={['Response field', 'Meaning']}
          rows={[
            [c('data'), 'The items of this page.'],
            [c('hasMore'), 'true when older items exist.'],
            [c('nextCursor'), 'Present when hasMore is true: pass it as after for the next page.'],
            [c('prevCursor'), 'Present when newer items exist: pass it as before for the previous page.'],
          ]}
        />
        <CodeBlock label="Next page">{'curl "$BASE_URL/keys?limit=20&after=key_01JD8X3ZQ2N6W5V4T3S2R1P0MK" \\\n  -H "Authorization: Bearer $API_KEY"'}</CodeBlock>
      </Section>

      <Section id="rate-limits" title="Rate limits">
        <p>Limits apply per API key and depend on the workspace plan. Requests without a valid key are limited per client address.</p>
        <Table
          head={['Plan', 'Requests per minute', 'Requests per day']}
          rows={[
            ['Starter', number(PLAN_LIMITS.starter.perMinute), number(PLAN_LIMITS.starter.perDay ?? 0)],
            ['Professional', number(PLAN_LIMITS.professional.perMinute), number(PLAN_LIMITS.professional.perDay ?? 0)],
            ['Enterprise', 'Custom', 'Unlimited'],
          ]}
        />
        <Table
          head={['Header', 'Meaning']}
          rows={[
            [c('X-RateLimit-Limit'), 'The limit of the window with the fewest requests left.'],
            [c('X-RateLimit-Remaining'), 'Requests left in that window.'],
            [c('X-RateLimit-Reset'), 'Unix time in seconds at which that window resets.'],
            [c('Retry-After'), 'On 429 only: seconds to wait before retrying.'],
          ]}
        />
      </Section>
    </>
  );
}
