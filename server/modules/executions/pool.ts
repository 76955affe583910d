import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { agents, agentVersions, messages } from '../../../db/schema';
import { CHANNELS, type Bus } from '../../platform/notify';
import type { Headroom } from '../../platform/headroom';
import { ApiError } from '../../platform/errors';
import { log } from '../../platform/log';
import { RecentIds } from '../../platform/recent-ids';
import { allocate, queuedTenants } from './admission';
import type { Live } from './live';
import { RunLog } from './recorder';
import { startColumns } from './participants';
import { runAgent, type Started } from './runner';
import { expireApprovals } from './pause';
import { claimQueued, failLostExecutions, heartbeat, HEARTBEAT_MS, type ExecutionRow, type RunRef } from './lifecycle';

// The executions a worker process runs (docs/concurrency.md): EXECUTION_CONCURRENCY slots. Free
// slots take queued runs by the fair claim (admission.ts) when a run is queued or a slot frees
// anywhere (NOTIFY `aas_jobs` 'executions'), when a run here ends while more may be waiting, and
// every POLL_MS as a floor. A `wait` or `stream` request may take a slot to run its execution in
// place (`reserve`). One statement renews the heartbeat of every run here; cancels and follow
// requests arrive over the bus and reach the run by its id; the sweeper fails runs whose worker
// stopped heart-beating (worker_lost) and denies tool calls whose approval expired. The execution row is the job: there is no other queue.

const POLL_MS = 5_000;
/**
 * Follow and cancel requests (`aas_follow`, `aas_cancel`) for runs not held here yet, kept this
 * long and at most this many: a stream in another process asks as soon as it opens, and again
 * when the run's started event is signalled, which the claim commits before this process has set
 * the run up; a cancel committed just after the claim is signalled in the same window. A run
 * claimed just after such a request writes promptly from its start instead of every 2 s
 * (recorder.ts), or stops at once instead of at its next write or heartbeat.
 */
const ASKED_MEMORY_MS = 60_000;
const ASKED_MEMORY = 10_000;

/** Runs a worker keeps going while its event loop has no headroom (platform/headroom.ts). */
export const BUSY_FLOOR = 4;

/** A slot taken for a run this process starts itself (in place), or given back unused. */
export interface Slot {
  /** Runs the started execution in the slot; resolves with it as it finished (null: someone else ended it). */
  run(started: Started): Promise<ExecutionRow | null>;
  release(): void;
}

interface Active {
  ref: RunRef;
  controller: AbortController;
  log: RunLog;
  done: Promise<unknown>;
}

export class ExecutionPool {
  private readonly runs = new Map<string, Active>();
  /** Follow and cancel requests that came before their run (ASKED_MEMORY). */
  private readonly followed = new RecentIds(ASKED_MEMORY, ASKED_MEMORY_MS);
  private readonly cancelled = new RecentIds(ASKED_MEMORY, ASKED_MEMORY_MS);
  private reserved = 0;
  private wanted = true;
  private stopped = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  private offs: (() => void)[] = [];

  /** `headroom`: claims wait while this process's event loop is too busy (platform/headroom.ts). */
  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly live: Live,
    readonly concurrency: number,
    private readonly headroom?: Headroom,
    private readonly claims: Db = db,
  ) {}

  /** Runs held now (for tests and the benchmark). */
  get size(): number {
    return this.runs.size;
  }

  /** Whether this process still runs the execution: false once its run has ended, late writes included (tests' barrier). */
  holds(executionId: string): boolean {
    return this.runs.has(executionId);
  }

  start(): void {
    // A request for a run not held here (yet) is remembered for it (ASKED_MEMORY).
    const byId = (fn: (run: Active) => void, early: RecentIds) => (id: string) => {
      const run = this.runs.get(id);
      if (run) fn(run);
      else early.add(id);
    };
    this.offs.push(
      this.bus.subscribe(CHANNELS.work, (work) => work === 'executions' && this.signal()),
      this.bus.subscribe(
        CHANNELS.cancel,
        byId((run) => run.controller.abort('cancelled'), this.cancelled),
      ),
      this.bus.subscribe(
        CHANNELS.follow,
        byId((run) => run.log.follow(), this.followed),
      ),
      this.bus.onReconnect(() => this.signal()),
    );
    const beat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    const sweep = () =>
      Promise.all([
        failLostExecutions(this.db).then(
          (lost) => lost.length > 0 && log.warn({ executions: lost }, 'executions failed as worker_lost'),
          (err: unknown) => log.error({ err }, 'worker_lost sweep failed'),
        ),
        // Calls awaiting approval past their expiry are denied as `expired` (docs/approvals.md: within 60 s).
        expireApprovals(this.db).then(
          (expired) => expired.length > 0 && log.info({ executions: expired }, 'tool calls awaiting approval expired'),
          (err: unknown) => log.error({ err }, 'approval expiry sweep failed'),
        ),
      ]);
    void sweep();
    const sweeper = setInterval(sweep, HEARTBEAT_MS);
    for (const t of [beat, sweeper]) t.unref();
    this.timers.push(beat, sweeper);
    this.loop = this.fetchLoop();
  }

  /** A free slot for a run started in place, or null when every slot is taken (or the pool stops). */
  reserve(): Slot | null {
    if (this.stopped || this.runs.size + this.reserved >= this.concurrency) return null;
    this.reserved++;
    let open = true;
    const give = () => {
      if (!open) return false;
      open = false;
      this.reserved--;
      return true;
    };
    return {
      run: (started) => {
        give();
        return this.run(started);
      },
      release: () => {
        if (give()) this.freed();
      },
    };
  }

  private signal(): void {
    this.wanted = true;
    this.wake?.();
  }

  /** A slot freed: look for queued runs if some were announced since the last look. */
  private freed(): void {
    if (this.wanted) this.wake?.();
  }

  private run(started: Started): Promise<ExecutionRow | null> {
    const { row } = started;
    const controller = new AbortController();
    const runLog = new RunLog(this.db, this.live, row, () => !controller.signal.aborted && controller.abort('cancelled'));
    if (this.followed.take(row.id)) runLog.eagerly();
    if (this.cancelled.take(row.id)) controller.abort('cancelled');
    const done = runAgent(this.db, started, { controller, log: runLog }).finally(() => {
      this.runs.delete(row.id);
      this.freed();
    });
    this.runs.set(row.id, { ref: { id: row.id, attempt: row.attempt }, controller, log: runLog, done });
    return done;
  }

  private async beat(): Promise<void> {
    const refs = [...this.runs.values()].map((r) => r.ref);
    if (refs.length === 0) return;
    try {
      const ours = await heartbeat(this.db, refs);
      // Not ours any more (cancelled, or declared lost): stop calling the model for it.
      for (const ref of refs) if (!ours.has(ref.id)) this.runs.get(ref.id)?.controller.abort('cancelled');
    } catch (err) {
      log.warn({ err }, 'heartbeat failed');
    }
  }

  /** Takes up to `free` queued runs, fairly between tenants, and starts them; returns how many. */
  private async claim(free: number): Promise<number> {
    const candidates = await queuedTenants(this.claims);
    if (candidates.length === 0) return 0;
    // Ties between tenants with as many running go either way, not always to the same one.
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    const grants = [...allocate(candidates, free)].map(([tenant, count]) => ({ tenant, count }));
    const claimed = await claimQueued(this.claims, grants, readRunInputs);
    if (!claimed) return 0;
    for (const started of claimed.read) void this.run(started);
    return claimed.rows.length;
  }

  private async fetchLoop(): Promise<void> {
    while (!this.stopped) {
      const open = this.concurrency - this.runs.size - this.reserved;
      // The loop busy: running more now would take it from the requests of every tenant. Wait for
      // room, keeping BUSY_FLOOR runs going meanwhile (background work never stops altogether).
      const busy = this.headroom !== undefined && !this.headroom.available;
      if (this.wanted && open > 0 && busy && this.runs.size >= BUSY_FLOOR) {
        await this.headroom!.wait(() => this.stopped || this.runs.size < BUSY_FLOOR);
        continue;
      }
      const free = busy ? Math.min(open, BUSY_FLOOR - this.runs.size) : open;
      if (this.wanted && free > 0) {
        this.wanted = false;
        try {
          // As many as it could take: more may be waiting.
          if ((await this.claim(free)) === free) this.wanted = true;
        } catch (err) {
          log.error({ err }, 'claiming queued executions failed');
          await new Promise((r) => setTimeout(r, 1_000));
          this.wanted = true;
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.wanted = true;
          done();
        }, POLL_MS);
        const done = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
        this.wake = done;
      });
    }
  }

  /** Stops taking runs and waits up to `timeoutMs` for the running ones. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    this.wake?.();
    for (const off of this.offs) off();
    await this.loop;
    // Cleared once the runs are done: a pending timer would keep the process alive for the whole timeout.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.runs.values()].map((r) => r.done)), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    for (const t of this.timers) clearInterval(t);
  }
}

/** The runs whose participants read the same: same workspace, environment, agent and key. */
const ownerOf = (row: ExecutionRow) => `${row.workspaceId}:${row.environment}:${row.agentId}:${row.keyId ?? ''}`;

/**
 * The agents and conversation histories of claimed runs (in the claim's transaction), each agent
 * as the version its run runs (docs/versions.md): the row is the latest; an older version's
 * config comes with it from `agent_versions`, joined in the same statement.
 */
async function readRunInputs(tx: Db, rows: ExecutionRow[]): Promise<Started[]> {
  if (rows.length === 0) return [];
  const versions = [...new Set(rows.flatMap((r) => (r.agentVersion !== null ? [r.agentVersion] : [])))];
  // The participants' start columns, as a start in place reads them (service.ts), once per owner
  // (workspace, environment, agent, key) of the claimed runs, in the round trip of the agents and
  // histories: what a claimed run carries to its first model call, which then needs no read of its
  // own (a budget's check: docs/budgets.md).
  const owners = new Map<string, { columns: ReturnType<typeof startColumns>; agentId: string }>();
  for (const row of rows) {
    if (owners.has(ownerOf(row))) continue;
    const columns = startColumns({ workspaceId: row.workspaceId, environment: row.environment, agentId: row.agentId, keyId: row.keyId, inPlace: true, model: sql`${agents.model}` });
    owners.set(ownerOf(row), { columns, agentId: row.agentId });
  }
  const ownerRows = [...owners].map(([owner, o]) => ({ owner, ...o }));
  const [agentRows, history, readings] = await Promise.all([
    tx
      .select({ agent: agents, version: agentVersions.version, config: agentVersions.config })
      .from(agents)
      .leftJoin(agentVersions, and(eq(agentVersions.agentId, agents.id), ne(agentVersions.version, agents.version), inArray(agentVersions.version, versions.length > 0 ? versions : [0])))
      .where(inArray(agents.id, [...new Set(rows.map((r) => r.agentId))]))
      .execute(),
    tx
      .select({ conversationId: messages.conversationId, modelMessage: messages.modelMessage })
      .from(messages)
      .where(inArray(messages.conversationId, [...new Set(rows.map((r) => r.conversationId))]))
      .orderBy(asc(messages.conversationId), asc(messages.id))
      .execute(),
    Promise.all(ownerRows.map(({ columns, agentId }) => tx.select(columns.columns).from(agents).where(eq(agents.id, agentId)).execute())),
  ]);
  const carried = new Map<string, Record<string, unknown> | undefined>();
  for (const [i, { owner, columns }] of ownerRows.entries()) {
    const values = readings[i]![0];
    try {
      carried.set(owner, values ? columns.read(values) : undefined);
    } catch (err) {
      // A participant refuses the run (a `block` budget reached): nothing carried; its first
      // call's own check refuses it, as before.
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return rows.map((row) => {
    const agent = agentRows.find((a) => a.agent.id === row.agentId)?.agent;
    const pinned = agent && row.agentVersion !== null && row.agentVersion !== agent.version ? agentRows.find((a) => a.agent.id === row.agentId && a.version === row.agentVersion) : undefined;
    return {
      row,
      agent: agent && pinned?.config ? { ...agent, ...pinned.config } : agent,
      history: history.filter((m) => m.conversationId === row.conversationId),
      carried: carried.get(ownerOf(row)),
    };
  });
}
