// The one command path: lock -> begin -> load snapshots for update -> pure transitions ->
// write snapshots fenced by version, ledger rows (by the body) and outbox rows -> commit ->
// unlock -> deliver effects. Nothing else writes actor state.
import { AsyncLocalStorage } from 'node:async_hooks';
import { initialTransition, transition } from 'xstate';
import type { Clock } from '../clock.ts';
import { createIdMinter, legacyIdPermutationKey, type IdMinter } from '../ids.ts';
import { commandDeadlineMs, commandVersionConflictRetriesMax } from '../limits.ts';
import type { LockHold, LockService } from '../locks/lock.ts';
import { LockLostError } from '../locks/lock.ts';
import type { Metrics } from '../metrics.ts';
import { pipelinedTransaction, type Sql, type TransactionSql } from '../storage/database.ts';
import { lockResource, type ActorKind, type EventOf, type InputOf, type RowlessRestore, type SnapshotOf, type StoredSnapshot } from './actor.ts';
import { createSharedTransactions, type SharedRows } from './shared-transactions.ts';
import * as store from './store.ts';

export type { SharedRowLocks } from './shared-transactions.ts';

export class VersionConflictError extends Error {
  constructor(kind: string, id: string) {
    super(`actor ${kind}:${id} changed under the command; retrying`);
  }
}

export class ActorMissingError extends Error {
  constructor(kind: string, id: string) {
    super(`actor ${kind}:${id} was not loaded before it was sent an event`);
  }
}

/** The command whose locks the current async context holds, if any. */
const commandScope = new AsyncLocalStorage<string>();

/** The name of the command running in this async context (its body holds locks and a transaction), or undefined. */
export function currentCommand(): string | undefined {
  return commandScope.getStore();
}

/**
 * Network calls (and other slow work) never run while a command holds its locks and a pooled
 * connection: they happen before the command, and their outcome arrives in its input.
 */
export function assertOutsideCommand(what: string): void {
  const name = commandScope.getStore();
  if (name) throw new Error(`${what} inside command ${name}: do it before the command and pass the outcome in`);
}

/** A command that did not finish within its deadline (commandDeadlineMs) of taking its locks. */
export class CommandTimeoutError extends Error {
  constructor(readonly command: string, deadlineMs: number) {
    super(`command ${command} did not finish within ${deadlineMs} ms; its locks are released`);
  }
}

/** The work's answer, or CommandTimeoutError after the deadline (the work's late outcome is dropped). */
function withinDeadline<T>(work: Promise<T>, name: string, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CommandTimeoutError(name, deadlineMs)), deadlineMs);
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Thrown by unit.reject to roll back everything and answer with a value (a named rejection). */
class CommandRejected {
  constructor(readonly value: unknown) {}
}

interface Tracked {
  kind: ActorKind;
  id: string;
  loadedVersion: number;
  snapshot: any;
  dirty: boolean;
  /** The insert of a created actor, sent at once so it rides with the body's next statements. */
  inserted?: Promise<void>;
  /** No actor row exists (its kind keeps none for this snapshot): written by finish() only if it comes to need one. */
  rowless?: boolean;
}

/** Whether the kind keeps an actor row for this snapshot (kinds without keepsRow always do). */
function keepsRow(kind: ActorKind, snapshot: unknown): boolean {
  return kind.keepsRow ? kind.keepsRow(snapshot as never) : true;
}

/**
 * What a command body may do inside its transaction. E is what the command may reject with:
 * its run answers R | E, and a body (or a helper it hands the unit) cannot reject with anything else.
 */
export interface Unit<E = never> {
  readonly tx: TransactionSql;
  readonly now: Date;
  /** Rolls back everything the command did and makes it answer value (a named rejection). */
  readonly reject: (value: E) => never;
  /** Loads an actor's snapshot (row-locked) or null when it does not exist. */
  load<K extends ActorKind>(kind: K, id: string): Promise<SnapshotOf<K> | null>;
  /** Starts a new actor in its machine's initial state. */
  create<K extends ActorKind>(kind: K, id: string, input: InputOf<K>): SnapshotOf<K>;
  /** Applies an event to a loaded actor; null when its machine does not take the event in its state. */
  send<K extends ActorKind>(kind: K, id: string, event: EventOf<K>): SnapshotOf<K> | null;
  /** Schedules (or replaces) a named durable timer that delivers event to the actor at dueAt. */
  schedule<K extends ActorKind>(kind: K, id: string, name: string, dueAt: Date, event: EventOf<K>): void;
  cancelTimer(kind: ActorKind, id: string, name: string): void;
  /** Queues an effect for after commit (a message, a payout, a webhook). */
  emit(kind: string, payload: unknown): void;
  /** A new 10-digit id, unique across the database. */
  newShortId(salt: string): Promise<string>;
  /** A new 16-digit id, unique across the database. */
  newLongId(salt: string): Promise<string>;
}

export interface RunOptions {
  /**
   * Let the command share a transaction with other shared commands that hold their locks at the
   * same time (one commit, pipelined statements). Only for bodies whose writes are keyed by what
   * their locks cover, are new rows, or touch the rows named here, so any mix of them commits as
   * if run one after another. `rows` names the rows the body locks that others may lock too: a
   * shared transaction takes all its commands' rows in one ordered statement before any body
   * runs, so two shared transactions (in one process or several) never wait on each other in a
   * cycle.
   */
  shared?: SharedRows;
}

export interface CommandRunner {
  /** Runs body under the locks in one transaction; answers its result, or the value it rejected with. */
  run<R, E = never>(name: string, lockRefs: readonly { kind: string; id: string }[], body: (unit: Unit<E>) => Promise<R>, options?: RunOptions): Promise<R | E>;
  /** Calls `listener` right after every commit (outside the command's scope), whether or not it queued effects. */
  onCommit(listener: () => void): void;
  /** How `unit.load` restores an actor of `kind` that keeps no row (ActorKind.keepsRow) from its domain's row. */
  restoreRowless(kind: ActorKind, restore: RowlessRestore): void;
}

export interface CommandRunnerOptions {
  sql: Sql;
  locks: LockService;
  clock: Clock;
  metrics: Metrics;
  onCommitted?: (outboxIds: bigint[]) => void;
  /** The installation's ids (the engine passes its own; the legacy key otherwise). */
  ids?: IdMinter;
  /** How long a command may hold its locks (default commandDeadlineMs; tests shorten it). */
  deadlineMs?: number;
  /**
   * Run each body in the command scope that currentCommand and assertOutsideCommand read (default
   * on; config.commandScopeChecks). Off, they see no command: the checks are a development safety
   * net, and the AsyncLocalStorage behind them makes Node track every promise of the process.
   */
  scopeChecks?: boolean;
}

export function toStored(snapshot: { value: unknown; context: unknown; status: string }): StoredSnapshot {
  return { value: snapshot.value, context: snapshot.context, status: snapshot.status };
}

export function restoreSnapshot<K extends ActorKind>(kind: K, stored: StoredSnapshot): SnapshotOf<K> {
  return kind.machine.resolveState({ value: stored.value as never, context: stored.context as never, status: stored.status as never }) as SnapshotOf<K>;
}

export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

const retryableSqlStates = new Set(['40001', '40P01']);

function isRetryable(error: unknown): boolean {
  if (error instanceof VersionConflictError) return true;
  const code = (error as { code?: string } | null)?.code;
  return typeof code === 'string' && retryableSqlStates.has(code);
}

type TimerWrite = { op: 'set'; kind: string; id: string; name: string; dueAt: Date; event: unknown } | { op: 'delete'; kind: string; id: string; name: string };

/**
 * The writes that end a unit: changed snapshots (fenced by version), timers and outbox rows. They
 * touch independent rows; sent together, postgres.js pipelines them into one round trip. Each
 * versioned update is checked once all have answered.
 */
async function writeUnit(tx: TransactionSql, now: Date, state: { tracked: Map<string, Tracked>; timers: TimerWrite[]; effects: { kind: string; payload: unknown }[] }): Promise<bigint[]> {
  const tracked = [...state.tracked.values()];
  // An actor without a row gets one only when its snapshot now needs it (never, for a transfer born final).
  const rowlessInserts = tracked
    .filter((entry) => entry.rowless && keepsRow(entry.kind, entry.snapshot))
    .map((entry) => store.insertActor(tx, entry.kind.kind, entry.id, stateName(entry.snapshot.value), toStored(entry.snapshot), now));
  const inserts = [...tracked.flatMap((entry) => (entry.inserted ? [entry.inserted] : [])), ...rowlessInserts];
  const snapshotWrites = tracked
    .filter((entry) => entry.dirty && !entry.rowless)
    .map(async (entry) => {
      const written = await store.updateActor(tx, entry.kind.kind, entry.id, entry.loadedVersion, stateName(entry.snapshot.value), toStored(entry.snapshot), now);
      if (!written) throw new VersionConflictError(entry.kind.kind, entry.id);
    });
  const timerWrites = state.timers.map((timer) =>
    timer.op === 'set' ? store.upsertTimer(tx, timer.kind, timer.id, timer.name, timer.dueAt, timer.event) : store.deleteTimer(tx, timer.kind, timer.id, timer.name),
  );
  const [outboxIds] = await Promise.all([store.insertOutbox(tx, state.effects, now), ...inserts, ...snapshotWrites, ...timerWrites]);
  return outboxIds;
}

/**
 * An actor's snapshot read row-locked, or restored from its domain's row when its kind keeps no
 * row for it (the caller's lock covers that row); null when there is neither.
 */
async function loadTracked(tx: TransactionSql, kind: ActorKind, id: string, restorers: ReadonlyMap<string, RowlessRestore>): Promise<Tracked | null> {
  const row = await store.selectActorForUpdate(tx, kind.kind, id);
  if (row) return { kind, id, loadedVersion: row.version, snapshot: restoreSnapshot(kind, row.snapshot), dirty: false };
  const restore = kind.keepsRow ? restorers.get(kind.kind) : undefined;
  const stored = restore ? await restore(tx, id) : null;
  return stored ? { kind, id, loadedVersion: 0, snapshot: restoreSnapshot(kind, stored), dirty: false, rowless: true } : null;
}

/** A unit over a transaction, and the writes that end it. */
function openUnit(tx: TransactionSql, now: Date, ids: IdMinter, restorers: ReadonlyMap<string, RowlessRestore>): { unit: Unit<unknown>; finish(): Promise<bigint[]> } {
  const tracked = new Map<string, Tracked>();
  const timers: TimerWrite[] = [];
  const effects: { kind: string; payload: unknown }[] = [];
  const key = (kind: ActorKind, id: string) => `${kind.kind}:${id}`;

  const unit: Unit<unknown> = {
    tx,
    now,
    reject(value) {
      throw new CommandRejected(value);
    },
    async load(kind, id) {
      const existing = tracked.get(key(kind, id));
      if (existing) return existing.snapshot;
      const loaded = await loadTracked(tx, kind, id, restorers);
      if (loaded) tracked.set(key(kind, id), loaded);
      return loaded?.snapshot ?? null;
    },
    create(kind, id, input) {
      if (tracked.has(key(kind, id))) throw new Error(`actor ${kind.kind}:${id} created twice in one command`);
      const [snapshot] = initialTransition(kind.machine, input as never);
      // A snapshot its kind keeps no row for (a transfer born final) is written only if it comes to need one.
      if (!keepsRow(kind, snapshot)) {
        tracked.set(key(kind, id), { kind, id, loadedVersion: 0, snapshot, dirty: false, rowless: true });
        return snapshot as never;
      }
      // Written now at version 1; a later change in this command updates it in finish().
      const inserted = store.insertActor(tx, kind.kind, id, stateName(snapshot.value), toStored(snapshot as never), now);
      inserted.catch(() => {});
      tracked.set(key(kind, id), { kind, id, loadedVersion: 1, snapshot, dirty: false, inserted });
      return snapshot as never;
    },
    send(kind, id, event) {
      const entry = tracked.get(key(kind, id));
      if (!entry) throw new ActorMissingError(kind.kind, id);
      if (!entry.snapshot.can(event)) return null;
      const [next] = transition(kind.machine, entry.snapshot, event as never);
      entry.snapshot = next;
      entry.dirty = true;
      return next as never;
    },
    schedule(kind, id, timerName, dueAt, event) {
      timers.push({ op: 'set', kind: kind.kind, id, name: timerName, dueAt, event });
    },
    cancelTimer(kind, id, timerName) {
      timers.push({ op: 'delete', kind: kind.kind, id, name: timerName });
    },
    emit(kind, payload) {
      effects.push({ kind, payload });
    },
    async newShortId(salt) {
      return ids.short(await store.nextShortSequence(tx), salt);
    },
    async newLongId(salt) {
      return ids.long(await store.nextLongSequence(tx), salt);
    },
  };

  return { unit, finish: () => writeUnit(tx, now, { tracked, timers, effects }) };
}

/** One command's transaction, its locks already held. */
async function transact<R>(sql: Sql, open: (tx: TransactionSql) => ReturnType<typeof openUnit>, body: (unit: Unit<unknown>) => Promise<R>, hold: LockHold): Promise<{ result: R; outboxIds: bigint[] }> {
  return pipelinedTransaction(sql, async (tx) => {
    const { unit, finish } = open(tx);
    const result = await body(unit);
    const outboxIds = await finish();
    // The last moment to learn that the lock passed on: after this, commit.
    if (!hold.isHeld()) throw new LockLostError();
    return { result, outboxIds };
  }) as Promise<{ result: R; outboxIds: bigint[] }>;
}

/** Runs work inside a command's scope and outside it; with the checks off (production), runs it as is. */
function commandScopes(scopeChecks: boolean) {
  return {
    within: <T>(name: string, body: () => Promise<T>): Promise<T> => (scopeChecks ? commandScope.run(name, body) : body()),
    outside: (body: () => void): void => (scopeChecks ? commandScope.exit(body) : body()),
  };
}

/** Effects are delivered after the commit and outside the command's scope (they may call the network). */
function afterCommitFor(scopes: ReturnType<typeof commandScopes>, onCommitted: CommandRunnerOptions['onCommitted'], listeners: readonly (() => void)[]): (outboxIds: bigint[]) => void {
  return (outboxIds) => scopes.outside(() => {
    if (outboxIds.length > 0) onCommitted?.(outboxIds);
    for (const listener of listeners) listener();
  });
}

export function createCommandRunner(options: CommandRunnerOptions): CommandRunner {
  const { sql, locks, clock, metrics } = options;
  const ids = options.ids ?? createIdMinter(legacyIdPermutationKey);

  const commitListeners: (() => void)[] = [];
  const restorers = new Map<string, RowlessRestore>();
  const scopes = commandScopes(options.scopeChecks ?? true);
  const afterCommit = afterCommitFor(scopes, options.onCommitted, commitListeners);

  /** Runs a command alone with its locks held, retrying version conflicts and deadlocks; rejections answer. */
  async function runHeld(name: string, body: (unit: Unit<unknown>) => Promise<unknown>, hold: LockHold, startedAt: number): Promise<unknown> {
    for (let tries = 0; ; tries++) {
      try {
        const { result, outboxIds } = await transact(sql, (tx) => openUnit(tx, clock.now(), ids, restorers), body, hold);
        metrics.commandDuration.observe({ command: name, outcome: 'committed' }, (performance.now() - startedAt) / 1000);
        afterCommit(outboxIds);
        return result;
      } catch (error) {
        if (error instanceof CommandRejected) {
          metrics.commandDuration.observe({ command: name, outcome: 'rejected' }, (performance.now() - startedAt) / 1000);
          return error.value;
        }
        if (isRetryable(error) && tries < commandVersionConflictRetriesMax) continue;
        metrics.commandDuration.observe({ command: name, outcome: 'failed' }, (performance.now() - startedAt) / 1000);
        throw error;
      }
    }
  }

  // Commands that may share a transaction queue for one (see shared-transactions.ts).
  const shared = createSharedTransactions<Unit<unknown>>({
    sql, clock, metrics,
    openUnit: (tx, now) => openUnit(tx, now, ids, restorers),
    runAlone: runHeld,
    txOf: (unit) => unit.tx,
    afterCommit,
  });

  /** Runs a command whose locks are held: alone, or queued for a shared transaction. */
  function runWithLocks<R, E>(name: string, body: (unit: Unit<E>) => Promise<R>, hold: LockHold, startedAt: number, runOptions: RunOptions | undefined): Promise<R | E> {
    const rows = runOptions?.shared;
    const answer = rows ? shared.enqueue(name, rows, hold, body, startedAt) : runHeld(name, body, hold, startedAt);
    // The body's result, or a rejection's value: that came through unit.reject, which takes only E.
    return answer as Promise<R | E>;
  }

  return {
    onCommit(listener) {
      commitListeners.push(listener);
    },
    restoreRowless(kind, restore) {
      if (!kind.keepsRow) throw new Error(`actor kind ${kind.kind} keeps a row for every snapshot`);
      restorers.set(kind.kind, restore);
    },
    async run<R, E>(name: string, lockRefs: readonly { kind: string; id: string }[], body: (unit: Unit<E>) => Promise<R>, runOptions?: RunOptions): Promise<R | E> {
      const resources = lockRefs.map((ref) => lockResource(ref.kind, ref.id));
      const startedAt = performance.now();
      return locks.using(resources, (hold) => scopes.within(name, async () => {
        const heldAt = performance.now();
        metrics.lockWait.observe({ command: name }, (heldAt - startedAt) / 1000);
        try {
          return await withinDeadline(runWithLocks(name, body, hold, startedAt, runOptions), name, options.deadlineMs ?? commandDeadlineMs);
        } finally {
          metrics.lockHeld.observe({ command: name }, (performance.now() - heldAt) / 1000);
        }
      }));
    },
  };
}
