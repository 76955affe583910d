import { asc, desc } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { agents, webhooks } from '../../../db/schema';
import { isSealed, sealedKeyId, UnreadableSecret, type Keyring } from '../../platform/sealed';
import { mcpHeaderPlace, toolSecretPlace, toolUrlPlace, webhookSecretPlace, webhookUrlPlace } from './stored';

// Does this SECRETS_KEY open what is stored? (docs/security.md, "A wrong key".) Checked at every
// start, before anything is sealed: a server started with another key used to say it was ready,
// then failed each operation that met a secret (a PATCH answered 500, deliveries waited forever),
// and its start-up sealing would have sealed old plain values under the wrong key. A sample is
// read — the newest and the oldest rows of each table that stores secrets, by primary key (ids
// sort by creation), so a start reads a few dozen rows whatever the size of the tables — and
// every sealed value in it is opened:
//
//   none opens, and none names a key the keyring holds   the key is plainly another: the start
//                                                         stops, naming the keys found and held;
//   some do not open                                      the start goes on, naming each place
//                                                         (a key dropped too soon, an altered row).

/** Rows read from each end of each table. */
const SAMPLE_ROWS = 20;

export interface KeyCheck {
  /** Sealed values in the sample. */
  sealed: number;
  /** Those that opened. */
  opened: number;
  /** Those that did not, with why. */
  unreadable: UnreadableSecret[];
  /** The key ids the sample's sealed values name, with how many each. */
  keyIds: Map<string, number>;
}

/** The stored secrets do not open with this keyring at all: the start stops (the message says what to do). */
export class SecretsKeyMismatch extends Error {
  override name = 'SecretsKeyMismatch';
}

/** The (place, stored value) pairs of a sample's rows. */
async function sample(db: Db): Promise<[string, string][]> {
  const hookColumns = { id: webhooks.id, secret: webhooks.secret, previousSecret: webhooks.previousSecret, url: webhooks.url };
  const agentColumns = { id: agents.id, toolSecret: agents.toolSecret, previousToolSecret: agents.previousToolSecret, tools: agents.tools };
  const [newHooks, oldHooks, newAgents, oldAgents] = await Promise.all([
    db.select(hookColumns).from(webhooks).orderBy(desc(webhooks.id)).limit(SAMPLE_ROWS),
    db.select(hookColumns).from(webhooks).orderBy(asc(webhooks.id)).limit(SAMPLE_ROWS),
    db.select(agentColumns).from(agents).orderBy(desc(agents.id)).limit(SAMPLE_ROWS),
    db.select(agentColumns).from(agents).orderBy(asc(agents.id)).limit(SAMPLE_ROWS),
  ]);
  const values = new Map<string, string>();
  for (const h of [...newHooks, ...oldHooks]) {
    values.set(`${webhookSecretPlace(h.id)}\0secret`, h.secret);
    if (h.previousSecret !== null) values.set(`${webhookSecretPlace(h.id)}\0previous`, h.previousSecret);
    values.set(webhookUrlPlace(h.id), h.url);
  }
  for (const a of [...newAgents, ...oldAgents]) {
    values.set(`${toolSecretPlace(a.id)}\0secret`, a.toolSecret);
    if (a.previousToolSecret !== null) values.set(`${toolSecretPlace(a.id)}\0previous`, a.previousToolSecret);
    for (const t of a.tools) {
      values.set(toolUrlPlace(a.id, t.name), t.url);
      if (t.type === 'mcp') for (const [name, value] of Object.entries(t.headers)) values.set(mcpHeaderPlace(a.id, t.name, name), value);
    }
  }
  // A secret and the one it replaced share their place; the key of the map tells them apart.
  return [...values].filter(([, v]) => isSealed(v)).map(([key, v]) => [key.split('\0')[0]!, v]);
}

export async function checkSecretsKey(db: Db, keyring: Keyring): Promise<KeyCheck> {
  const check: KeyCheck = { sealed: 0, opened: 0, unreadable: [], keyIds: new Map() };
  for (const [place, stored] of await sample(db)) {
    check.sealed++;
    const id = sealedKeyId(stored) ?? 'unknown';
    check.keyIds.set(id, (check.keyIds.get(id) ?? 0) + 1);
    try {
      keyring.open(place, stored);
      check.opened++;
    } catch (err) {
      if (!(err instanceof UnreadableSecret)) throw err;
      check.unreadable.push(err);
    }
  }
  return check;
}

/** Whether the keyring is plainly not the one the stored secrets were sealed with: nothing in the sample opens, and no value names a key it holds. */
export function plainlyWrong(check: KeyCheck, keyring: Keyring): boolean {
  return check.sealed > 0 && check.opened === 0 && ![...check.keyIds.keys()].some((id) => keyring.has(id));
}

/** The stop of a start whose keyring opens none of the stored secrets: what was found, what is held, what to do. */
export function mismatch(check: KeyCheck, keyring: Keyring, source: string): SecretsKeyMismatch {
  const found = [...check.keyIds].map(([id, n]) => `${id} (${n})`);
  return new SecretsKeyMismatch(
    `SECRETS_KEY cannot open the stored secrets: the ${check.sealed} sampled values are sealed under the key${found.length > 1 ? 's' : ''} ${found.join(', ')}, ` +
      `and this keyring (${source}) holds ${keyring.ids.join(', ')}. Start with the key that sealed them (add it to SECRETS_KEY, first to keep sealing with it, ` +
      'or second while a new one goes first); nothing was changed (docs/security.md, "A wrong key")',
  );
}

/** The places a sample could not open, in a line (for the log): each with its key and why. */
export const describeUnreadable = (list: UnreadableSecret[]) => list.map((e) => `${e.place} (${e.reason})`).join('; ');
