import { and, asc, eq, gt, isNull, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { agents, idempotencyKeys, unkeyedFingerprint, unsealedAgent, unsealedWebhook, webhooks, type StoredTool } from '../../../db/schema';
import { log } from '../../platform/log';
import { isSealed, sealedPrefix, UnreadableSecret, type Keyring } from '../../platform/sealed';
import { mcpHeaderPlace, sealUrl, toolSecretPlace, toolUrlPlace, webhookSecretPlace, webhookUrlPlace } from './stored';

// Sealing what is not sealed under the current key (docs/security.md, "Secrets at rest"):
//
//   'plaintext'  at every start-up: values written before secrets were sealed (or by a process
//                of an older version during an upgrade) are sealed, URLs stored before URLs were
//                are masked (and sealed when they hold a credential), and bare idempotency
//                fingerprints keyed. Values sealed under any key are left as they are.
//   'rotate'     `npm run admin -- rotate-secrets-key`: every value not under the first key of
//                the keyring is opened and sealed again under it.
//
// Rows are read in pages by id and each is written back with a conditional update (only if it
// still holds what was read), so this runs safely while servers run and write, and in several
// processes starting at once: a row changed meanwhile was written by a process that seals, and
// is looked at again by the next pass. Nothing here holds a lock or a transaction. At start-up
// the rows are found through partial indexes holding only the rows with something to seal
// (migration 0013, db/schema: `unsealedAgent`…), so a start reads no table when all is sealed.
// A rotation reads every row: it is an operator's command.

export type ResealMode = 'plaintext' | 'rotate';

export interface ResealReport {
  /** Rows whose values were sealed (again). */
  rows: number;
  /** Values that could not be opened (a key the keyring lacks): left as they are, logged. */
  unreadable: UnreadableSecret[];
  /** Bare idempotency fingerprints keyed. */
  fingerprints: number;
}

const PAGE = 200;
const MAX_PASSES = 5;

/** Whether a stored value needs sealing in this mode. */
const stale = (keyring: Keyring, mode: ResealMode) => (value: string) => (mode === 'plaintext' ? !isSealed(value) : !keyring.isCurrent(value));

/** SQL: the column's value is not sealed under the current key (null: no). The start-up uses the indexed predicates instead. */
function notCurrentSql(keyring: Keyring, column: AnyColumn | SQL): SQL {
  return sql`not starts_with(${column}, ${sealedPrefix(keyring.currentId)})`;
}

/** SQL: a URL sealed under another key than the current one (a URL without a credential is stored plain, rightly). */
function staleUrlSql(keyring: Keyring, column: AnyColumn | SQL): SQL {
  return sql`(starts_with(${column}, 'enc:') and ${notCurrentSql(keyring, column)})`;
}

/** The value sealed under the current key (opened first when sealed under another). */
function resealValue(keyring: Keyring, place: string, value: string): string {
  return keyring.seal(place, keyring.open(place, value));
}

interface Pass {
  changed: number;
  missed: number;
  unreadable: UnreadableSecret[];
}

/**
 * Resealing one row's values: each value that needs it, and can be opened, sealed under the
 * current key; one that cannot is left as it is and noted (the row's other values go on).
 */
class RowSealer {
  constructor(
    private readonly keyring: Keyring,
    private readonly mode: ResealMode,
    private readonly pass: Pass,
  ) {}

  value(place: string, stored: string): string;
  value(place: string, stored: string | null): string | null;
  value(place: string, stored: string | null): string | null {
    if (stored === null || !stale(this.keyring, this.mode)(stored)) return stored;
    return this.attempt(stored, () => resealValue(this.keyring, place, stored));
  }

  /** A URL and its masked form: masked (and sealed when it holds a credential) if stored before URLs were; moved to the current key on a rotation. */
  url(place: string, stored: string, masked: string | null | undefined): { url: string; masked: string | null } {
    const kept = { url: stored, masked: masked ?? null };
    if (masked === null || masked === undefined) return this.attempt(kept, () => sealUrl(place, this.keyring.open(place, stored), this.keyring));
    if (this.mode === 'rotate' && isSealed(stored) && !this.keyring.isCurrent(stored)) return { url: this.value(place, stored), masked };
    return kept;
  }

  private attempt<T>(fallback: T, f: () => T): T {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof UnreadableSecret)) throw err;
      unreadable(this.pass, err);
      return fallback;
    }
  }
}

/** SQL: a webhook with something not sealed under the current key (the rotation's; the start-up uses `unsealedWebhook`). */
function staleWebhookSql(keyring: Keyring): SQL {
  return or(notCurrentSql(keyring, webhooks.secret), notCurrentSql(keyring, webhooks.previousSecret), staleUrlSql(keyring, webhooks.url), isNull(webhooks.urlMasked))!;
}

async function webhooksPass(db: Db, keyring: Keyring, mode: ResealMode): Promise<Pass> {
  const pass: Pass = { changed: 0, missed: 0, unreadable: [] };
  for (let after = ''; ; ) {
    const rows = await db
      .select({ id: webhooks.id, secret: webhooks.secret, previousSecret: webhooks.previousSecret, url: webhooks.url, urlMasked: webhooks.urlMasked })
      .from(webhooks)
      .where(and(gt(webhooks.id, after), mode === 'plaintext' ? unsealedWebhook(webhooks) : staleWebhookSql(keyring)))
      .orderBy(asc(webhooks.id))
      .limit(PAGE);
    for (const row of rows) {
      const sealer = new RowSealer(keyring, mode, pass);
      const place = webhookSecretPlace(row.id);
      const secret = sealer.value(place, row.secret);
      const previous = sealer.value(place, row.previousSecret);
      const url = sealer.url(webhookUrlPlace(row.id), row.url, row.urlMasked);
      if (secret === row.secret && previous === row.previousSecret && url.url === row.url && url.masked === row.urlMasked) continue;
      const done = await db
        .update(webhooks)
        .set({ secret, previousSecret: previous, url: url.url, urlMasked: url.masked })
        .where(
          and(
            eq(webhooks.id, row.id),
            eq(webhooks.secret, row.secret),
            sql`${webhooks.previousSecret} is not distinct from ${row.previousSecret}`,
            eq(webhooks.url, row.url),
            sql`${webhooks.urlMasked} is not distinct from ${row.urlMasked}`,
          ),
        )
        .returning({ id: webhooks.id });
      count(pass, done.length);
    }
    if (rows.length < PAGE) return pass;
    after = rows.at(-1)!.id;
  }
}

/** SQL: some MCP header value of the agent's tools is not sealed under the current key. */
function staleHeadersSql(keyring: Keyring): SQL {
  const headers = sql`case when jsonb_typeof(t.value -> 'headers') = 'object' then t.value -> 'headers' else '{}'::jsonb end`;
  return sql`exists (select 1 from jsonb_array_elements(${agents.tools}) t, jsonb_each_text(${headers}) h where ${notCurrentSql(keyring, sql`h.value`)})`;
}

/** SQL: some tool URL of the agent is sealed under another key, or was stored before URLs were (no `maskedUrl`). */
function staleUrlsSql(keyring: Keyring): SQL {
  return sql`exists (select 1 from jsonb_array_elements(${agents.tools}) t where jsonb_typeof(t.value -> 'maskedUrl') is distinct from 'string' or ${staleUrlSql(keyring, sql`t.value ->> 'url'`)})`;
}

/** SQL: an agent with something not sealed under the current key (the rotation's; the start-up uses `unsealedAgent`). */
function staleAgentSql(keyring: Keyring): SQL {
  return or(notCurrentSql(keyring, agents.toolSecret), notCurrentSql(keyring, agents.previousToolSecret), staleHeadersSql(keyring), staleUrlsSql(keyring))!;
}

async function agentsPass(db: Db, keyring: Keyring, mode: ResealMode): Promise<Pass> {
  const pass: Pass = { changed: 0, missed: 0, unreadable: [] };
  for (let after = ''; ; ) {
    const rows = await db
      .select({ id: agents.id, toolSecret: agents.toolSecret, previousToolSecret: agents.previousToolSecret, tools: agents.tools })
      .from(agents)
      .where(
        and(
          gt(agents.id, after),
          mode === 'plaintext' ? unsealedAgent(agents) : staleAgentSql(keyring),
        ),
      )
      .orderBy(asc(agents.id))
      .limit(PAGE);
    for (const row of rows) {
      const sealer = new RowSealer(keyring, mode, pass);
      const place = toolSecretPlace(row.id);
      const toolSecret = sealer.value(place, row.toolSecret);
      const previous = sealer.value(place, row.previousToolSecret);
      const tools: StoredTool[] = row.tools.map((t) => {
        const { url, masked } = sealer.url(toolUrlPlace(row.id, t.name), t.url, t.maskedUrl);
        const withUrl = { ...t, url, ...(masked === null ? {} : { maskedUrl: masked }) };
        if (withUrl.type !== 'mcp') return withUrl;
        return { ...withUrl, headers: Object.fromEntries(Object.entries(withUrl.headers).map(([name, value]) => [name, sealer.value(mcpHeaderPlace(row.id, t.name, name), value)])) };
      });
      if (toolSecret === row.toolSecret && previous === row.previousToolSecret && JSON.stringify(tools) === JSON.stringify(row.tools)) continue;
      const done = await db
        .update(agents)
        .set({ toolSecret, previousToolSecret: previous, tools })
        .where(
          and(
            eq(agents.id, row.id),
            eq(agents.toolSecret, row.toolSecret),
            sql`${agents.previousToolSecret} is not distinct from ${row.previousToolSecret}`,
            sql`${agents.tools} = ${JSON.stringify(row.tools)}::jsonb`,
          ),
        )
        .returning({ id: agents.id });
      count(pass, done.length);
    }
    if (rows.length < PAGE) return pass;
    after = rows.at(-1)!.id;
  }
}

/** Bare fingerprints (a SHA-256 digest, from before they were keyed) keyed under the current key. */
async function fingerprintsPass(db: Db, keyring: Keyring): Promise<number> {
  const k = idempotencyKeys;
  let keyed = 0;
  for (let after: [string, string, string] = ['', '', '']; ; ) {
    const rows = await db
      .select({ workspaceId: k.workspaceId, environment: k.environment, key: k.key, fingerprint: k.fingerprint })
      .from(k)
      .where(and(sql`(${k.workspaceId}, ${k.environment}, ${k.key}) > (${after[0]}, ${after[1]}, ${after[2]})`, unkeyedFingerprint(k)))
      .orderBy(asc(k.workspaceId), asc(k.environment), asc(k.key))
      .limit(PAGE);
    for (const row of rows) {
      const done = await db
        .update(k)
        .set({ fingerprint: keyring.fingerprint(row.fingerprint) })
        .where(and(eq(k.workspaceId, row.workspaceId), eq(k.environment, row.environment), eq(k.key, row.key), eq(k.fingerprint, row.fingerprint)))
        .returning({ key: k.key });
      keyed += done.length;
    }
    if (rows.length < PAGE) return keyed;
    const last = rows.at(-1)!;
    after = [last.workspaceId, last.environment, last.key];
  }
}

function count(pass: Pass, updated: number): void {
  if (updated > 0) pass.changed++;
  else pass.missed++;
}

function unreadable(pass: Pass, err: UnreadableSecret): void {
  pass.unreadable.push(err);
  log.error({ place: err.place, keyId: err.keyId }, err.message);
}

/**
 * Seals what `mode` asks for in every table that stores secrets; passes again while rows changed
 * under it (at most a few times: what is left then is another process's recent writing, sealed).
 */
export async function resealSecrets(db: Db, keyring: Keyring, mode: ResealMode): Promise<ResealReport> {
  const report: ResealReport = { rows: 0, unreadable: [], fingerprints: 0 };
  for (let i = 0; i < MAX_PASSES; i++) {
    const passes = [await webhooksPass(db, keyring, mode), await agentsPass(db, keyring, mode)];
    report.rows += passes.reduce((n, p) => n + p.changed, 0);
    report.unreadable = passes.flatMap((p) => p.unreadable);
    if (passes.every((p) => p.missed === 0)) break;
  }
  report.fingerprints = await fingerprintsPass(db, keyring);
  return report;
}

/** What is still not sealed under the current key: rows (by table), and fingerprints under other keys. */
export async function unsealedLeft(db: Db, keyring: Keyring): Promise<{ webhooks: number; agents: number; fingerprints: number }> {
  const n = sql<number>`count(*)::int`;
  const [[w], [a], [f]] = await Promise.all([
    db.select({ n }).from(webhooks).where(staleWebhookSql(keyring)),
    db.select({ n }).from(agents).where(staleAgentSql(keyring)),
    db
      .select({ n })
      .from(idempotencyKeys)
      .where(sql`not starts_with(${idempotencyKeys.fingerprint}, ${`${keyring.currentId}:`})`),
  ]);
  return { webhooks: w!.n, agents: a!.n, fingerprints: f!.n };
}
