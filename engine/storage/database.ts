// Storage through postgres.js: either a real Postgres at DATABASE_URL, or the embedded default,
// PGlite with its data in DATA_DIR, served to postgres.js over a loopback socket.
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { databaseConnectTimeoutMs, databaseIdleInTransactionTimeoutMs, databaseReconnectDelayMsMax, databaseStatementTimeoutMs, pgliteErasedScrubDelayMs } from '../limits.ts';
import type { Logger } from '../logger.ts';

export type Sql = postgres.Sql<{ bigint: bigint }>;
export type TransactionSql = postgres.TransactionSql<{ bigint: bigint }>;
/** Either the pool or a transaction: store functions take this. */
export type Queryable = Sql | TransactionSql;

/**
 * Keys a transaction has marked (the balances it locked, the transfers whose dedup rung it climbed):
 * one set per transaction, kept as long as the transaction's handle lives. A shared transaction's
 * commands share one handle, and so one set.
 */
export interface TransactionMarks {
  mark(tx: Queryable, keys: Iterable<string>): void;
  marked(tx: Queryable): ReadonlySet<string>;
}

export function transactionMarks(): TransactionMarks {
  const byTransaction = new WeakMap<Queryable, Set<string>>();
  const none: ReadonlySet<string> = new Set();
  return {
    mark(tx, keys) {
      const marked = byTransaction.get(tx) ?? new Set<string>();
      for (const key of keys) marked.add(key);
      byTransaction.set(tx, marked);
    },
    marked: (tx) => byTransaction.get(tx) ?? none,
  };
}

export interface Database {
  sql: Sql;
  /**
   * A small pool for single-row reads outside transactions on the request path (a token, a UID).
   * Lookups of concurrent requests pipeline on its few connections, one socket write for many,
   * and never wait behind a long query of the main pool.
   */
  lookups: Sql;
  kind: 'postgres' | 'pglite';
  /** PGlite only: its data directory as a tar, to start another PGlite from (test templates). */
  dump?(): Promise<Blob>;
  /**
   * Embedded PGlite on disk only: `table` had content erased (a delivered message's body); its old
   * row versions leave the database's files soon (docs/reliability.md says what a Postgres server keeps).
   */
  forgetErased?(table: string): void;
  close(): Promise<void>;
}

export interface PgliteOptions {
  /** A data directory dumped by dump(): PGlite starts from it instead of running initdb. */
  loadDataDir?: Blob;
  /** How long after an erasure its pass runs (tests shorten it); default pgliteErasedScrubDelayMs. */
  erasedScrubDelayMs?: number;
}

/**
 * The embedded database's files are its owner's only: directories 0700, files 0600. PGlite writes the
 * files initdb made as 0666 whatever the umask (later files it makes 0600 itself), so the tree is
 * set right at each open, and the directory (0700) keeps out anyone else from what it makes later.
 */
function restrictToOwner(directory: string): void {
  chmodSync(directory, 0o700);
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const child = path.join(directory, entry.name);
    if (entry.isDirectory()) restrictToOwner(child);
    else if (entry.isFile()) chmodSync(child, 0o600);
  }
}

/**
 * Erased content leaves the embedded database's files: an UPDATE leaves the old row version in its
 * table's page and the WAL segment (also the page's full image). A pass, one per delay however many
 * erasures came in it, vacuums the tables named (the page keeps only the erased version), switches to
 * a new WAL segment and checkpoints, after which the old segments are deleted (wal_recycle off: not
 * renamed for reuse with their content). Each pass costs the one backend about 50-250 ms.
 */
function erasedScrubber(sql: Sql, delayMs: number, logger?: Logger) {
  const tables = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const pass = () => {
    timer = null;
    const names = [...tables];
    tables.clear();
    running = running.then(async () => {
      for (const name of names) await sql.unsafe(`vacuum ${name}`).simple();
      await sql`select pg_switch_wal()`;
      await sql.unsafe('checkpoint').simple();
    }).catch((error: unknown) => void logger?.warn('embedded database: erased rows could not be scrubbed from its files', { error: String(error) }));
    return running;
  };
  return {
    request(table: string) {
      // A table name from the code (it is spliced into VACUUM), never from a request.
      if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
      tables.add(table);
      timer ??= setTimeout(pass, delayMs).unref();
    },
    /** Runs a pass still waiting (before the database closes), and waits for a running one. */
    async flush() {
      if (timer) {
        clearTimeout(timer);
        await pass();
      }
      await running;
    },
  };
}

const poolSizeMax = 10;
const lookupPoolSize = 2;

/** Server-side bounds every Postgres session starts with (config: CASHLOOP_STATEMENT_TIMEOUT_MS and CASHLOOP_IDLE_IN_TRANSACTION_TIMEOUT_MS). */
export interface SessionLimits {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export const defaultSessionLimits: SessionLimits = { statementTimeoutMs: databaseStatementTimeoutMs, idleInTransactionTimeoutMs: databaseIdleInTransactionTimeoutMs };

/**
 * The wait before a pool connection tries again after a failed connect, in seconds (postgres.js's
 * own backoff grows to 20 s, so a pool that failed through a 10 s outage would sleep long after
 * the database is back): it grows from 10 ms and stops at databaseReconnectDelayMsMax.
 */
function reconnectDelaySeconds(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(3 ** retries * 10, databaseReconnectDelayMsMax) / 1000;
}

/**
 * No socket factory: postgres.js connects by itself, to each host of a multi-host URL in turn (what
 * target_session_attrs needs in a failover), and a refused connect runs its close path, so the
 * pool retries. (A factory that rejected left its pool slot connecting forever.) Nagle's algorithm
 * is off in patches/postgres+3.4.9.patch, as libpq does.
 */
function connect(url: string, poolSize: number, session: SessionLimits | null): Sql {
  return postgres(url, {
    max: poolSize,
    connect_timeout: databaseConnectTimeoutMs / 1000,
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    types: {
      bigint: postgres.BigInt,
    },
    // Startup parameters (milliseconds, the settings' unit): every session, however often the pool reconnects, carries the bounds.
    connection: {
      application_name: 'cashloop',
      ...(session ? { statement_timeout: session.statementTimeoutMs, idle_in_transaction_session_timeout: session.idleInTransactionTimeoutMs } : {}),
    },
  }) as unknown as Sql;
}

/**
 * Runs fn in a transaction whose BEGIN goes out with fn's first statements. postgres.js's begin()
 * waits for BEGIN's answer before running fn, one round trip more per transaction. As with
 * begin(), any failed statement fails the whole transaction, even one fn caught: COMMIT in a
 * failed transaction answers ROLLBACK, which this turns into an error.
 */
export async function pipelinedTransaction<R>(sql: Sql, fn: (tx: TransactionSql) => Promise<R>): Promise<R> {
  const reserved = await sql.reserve();
  try {
    const begun = reserved.unsafe('begin');
    // Its failure also fails every statement behind it; it is awaited below for its own error.
    begun.catch(() => {});
    let result: R;
    try {
      result = await fn(reserved as unknown as TransactionSql);
      await begun;
    } catch (error) {
      await reserved.unsafe('rollback').catch(() => {});
      throw error;
    }
    const committed = await reserved.unsafe('commit');
    if (committed.command !== 'COMMIT') throw new TransactionRolledBackError(committed.command);
    return result;
  } finally {
    reserved.release();
  }
}

/** Why the database could not serve a statement for the moment; a retry may succeed. */
export type DatabaseOutage = 'unreachable' | 'read_only' | 'overloaded' | 'timed_out' | 'contention';

/** postgres.js's own codes for a connection that went away, and the socket and name errors under them. */
const unreachableCodes = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL',
]);

/** SQLSTATEs of one outage each, beyond the classes matched by prefix in databaseOutage. */
const outageSqlStates: Record<string, DatabaseOutage> = {
  // A standby, or a primary being demoted: writes wait for the failover (target_session_attrs finds the new primary).
  '25006': 'read_only',
  // Our own bounds: statement_timeout (or a cancel) and idle_in_transaction_session_timeout.
  '57014': 'timed_out',
  '25P03': 'timed_out',
  // lock_timeout, serialization failure and deadlock past the command path's retries.
  '55P03': 'contention',
  '40001': 'contention',
  '40P01': 'contention',
};

/**
 * The outage an error reports, or null when it says a statement was wrong (a bug, a 500): a lost
 * or refused connection; SQLSTATE class 08 (connection exception), 53 (insufficient resources:
 * 53300 too many connections, disk full, out of memory) or 57P (shutdown, crash, not accepting
 * connections yet); a read-only session (failover); a statement or transaction past its bound;
 * contention that outlived its retries. The transaction did not commit; a retry may succeed.
 */
export function databaseOutage(error: unknown): DatabaseOutage | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (unreachableCodes.has(code) || code.startsWith('08') || code.startsWith('57P')) return 'unreachable';
  if (code.startsWith('53')) return 'overloaded';
  return outageSqlStates[code] ?? null;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseOutage(error) !== null;
}

export class TransactionRolledBackError extends Error {
  constructor(command: string) {
    super(`the transaction did not commit (Postgres answered ${command}): one of its statements failed`);
  }
}

/** A close that runs once however often it is called (the engine and its owner may both close). */
function closeOnce(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

export async function openPostgres(url: string, poolSize = poolSizeMax, session: SessionLimits = defaultSessionLimits): Promise<Database> {
  const sql = connect(url, poolSize, session);
  const lookups = connect(url, lookupPoolSize, session);
  await Promise.all([sql`select 1`, lookups`select 1`]);
  return { sql, lookups, kind: 'postgres', close: closeOnce(async () => void (await Promise.all([sql.end({ timeout: 5 }), lookups.end({ timeout: 5 })]))) };
}

/** Opens PGlite. With no dataDir the database lives in memory (tests); otherwise on disk. */
export async function openPglite(dataDir: string | undefined, logger?: Logger, options: PgliteOptions = {}): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  let location: string | undefined;
  if (dataDir) {
    location = path.resolve(dataDir, 'pglite');
    // A first start creates the database files: say so, it is the slow part before migrating.
    if (!existsSync(path.join(location, 'PG_VERSION'))) logger?.info(`creating the embedded database in ${location} (first start)`, { location });
    mkdirSync(location, { recursive: true, mode: 0o700 });
    chmodSync(location, 0o700);
  }
  const pglite = await PGlite.create({ ...(location ? { dataDir: location } : {}), ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}) });
  if (location) restrictToOwner(location);
  // Old WAL segments are deleted, not renamed for reuse with their content, and a new one is not
  // zero-filled (a sparse file: the scrub below takes ~50 ms instead of ~1 s). One backend: set once.
  await pglite.exec('set wal_recycle = off; set wal_init_zero = off');
  const poolSize = 4;
  // PGlite serves one backend; the socket server multiplexes. It must accept the whole pool.
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: poolSize + 4 });
  server.addEventListener('error', (event: Event) => logger?.error('pglite socket error', { error: String((event as CustomEvent).detail) }));
  keepExtendedBatchesTogether(server);
  await server.start();
  const address = server.getServerConn();
  // PGlite has one backend and no timers of its own: no session bounds (the request deadline still holds).
  const sql = connect(`postgres://postgres@${address}/postgres`, poolSize, null);
  await sql`select 1`;
  const scrubber = location ? erasedScrubber(sql, options.erasedScrubDelayMs ?? pgliteErasedScrubDelayMs, logger) : null;
  return {
    sql,
    // One backend serves every connection: a second pool would only queue behind the first.
    lookups: sql,
    kind: 'pglite',
    dump: () => pglite.dumpDataDir('none'),
    ...(scrubber ? { forgetErased: (table: string) => scrubber.request(table) } : {}),
    close: closeOnce(async () => {
      await scrubber?.flush();
      await sql.end({ timeout: 5 });
      await server.stop();
      await pglite.close();
    }),
  };
}

// Extended-protocol message types that leave a batch open until its Sync.
const batchOpeners = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);

/**
 * pglite-socket's queue interleaves single messages of different connections outside a
 * transaction, so two connections' Parse/Bind/Execute batches clobber each other's unnamed
 * portal ("portal \"\" does not exist"). Its queue already sticks to one connection while a
 * transaction is open; this makes it also stick until the connection's batch reaches Sync.
 */
function keepExtendedBatchesTogether(server: object): void {
  type QueueDb = {
    isInTransaction(): boolean;
    execProtocolRawStream(message: Uint8Array, options: unknown): Promise<unknown>;
    runExclusive<T>(routine: () => Promise<T>): Promise<T>;
    exec(query: string): Promise<unknown>;
  };
  const queue = (server as { queryQueue?: { db: QueueDb } }).queryQueue;
  if (!queue) throw new Error('pglite-socket changed: its query queue is missing');
  const db = queue.db;
  let batchOpen = false;
  queue.db = {
    isInTransaction: () => batchOpen || db.isInTransaction(),
    execProtocolRawStream: (message, options) => {
      batchOpen = batchOpeners.has(message[0]);
      return db.execProtocolRawStream(message, options);
    },
    runExclusive: (routine) => db.runExclusive(routine),
    exec: (query) => db.exec(query),
  };
}
