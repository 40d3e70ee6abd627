// The HTTP ceiling's server, run as its own process by http-ceiling.ts: express 5 and postgres.js
// (a pool of 10, TCP_NODELAY sockets like the engine's) answer POST /tx with one pgbench
// tpcb-like transaction. No Cashloop code runs here: it is the stack with nothing on top.
import { once } from 'node:events';
import net from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import postgres from 'postgres';
import { z } from 'zod';

const poolSize = 10;
const closeTimeoutSeconds = 5;
const accountsPerBranch = 100_000;
const tellersPerBranch = 10;
const deltaMax = 5000;

const environment = Object.freeze(
  z.object({
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//),
    PORT: z.coerce.number().int().min(1).max(65_535),
    HOST: z.string().default('127.0.0.1'),
    PGBENCH_SCALE: z.coerce.number().int().min(1),
  }).parse(process.env),
);

const transactionBody = z.object({
  aid: z.number().int().min(1).max(accountsPerBranch * environment.PGBENCH_SCALE),
  bid: z.number().int().min(1).max(environment.PGBENCH_SCALE),
  tid: z.number().int().min(1).max(tellersPerBranch * environment.PGBENCH_SCALE),
  delta: z.number().int().min(-deltaMax).max(deltaMax),
}).strict();

type Transaction = z.infer<typeof transactionBody>;

/** Nagle off, as in engine/storage/database.ts: pipelined statements must not wait for a delayed ACK. */
async function noDelaySocket(options: { host: string[]; port: number[]; path?: string | false }): Promise<net.Socket> {
  const socket = options.path ? net.connect(options.path) : net.connect(options.port[0], options.host[0]);
  socket.setNoDelay(true);
  await once(socket, 'connect');
  return socket;
}

const sql = postgres(environment.DATABASE_URL, {
  max: poolSize,
  // postgres.js supports a socket factory but does not declare it in its types.
  ...({ socket: noDelaySocket } as object),
  onnotice: () => {},
  connection: { application_name: 'cashloop_http_ceiling' },
});

/** pgbench's tpcb-like script, its five statements sent together so the transaction costs one round trip plus begin and commit. */
async function tpcbLike(transaction: Transaction): Promise<string> {
  const { aid, bid, tid, delta } = transaction;
  const [accounts, balances, tellers, branches, history] = await sql.begin((tx) => Promise.all([
    tx`update pgbench_accounts set abalance = abalance + ${delta} where aid = ${aid}`,
    tx<{ abalance: number }[]>`select abalance from pgbench_accounts where aid = ${aid}`,
    tx`update pgbench_tellers set tbalance = tbalance + ${delta} where tid = ${tid}`,
    tx`update pgbench_branches set bbalance = bbalance + ${delta} where bid = ${bid}`,
    tx`insert into pgbench_history (tid, bid, aid, delta, mtime) values (${tid}, ${bid}, ${aid}, ${delta}, current_timestamp)`,
  ]));
  for (const [table, written] of [['pgbench_accounts', accounts], ['pgbench_tellers', tellers], ['pgbench_branches', branches], ['pgbench_history', history]] as const) {
    if (written.count !== 1) throw new Error(`${table}: wrote ${written.count} rows, expected 1`);
  }
  if (balances.length !== 1) throw new Error(`pgbench_accounts: read ${balances.length} rows for aid ${aid}, expected 1`);
  return String(balances[0].abalance);
}

const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.use(express.json());

app.get('/readyz', async (_request: Request, response: Response) => {
  await sql`select 1`;
  response.json({ ready: true });
});

app.post('/tx', async (request: Request, response: Response) => {
  const parsed = transactionBody.safeParse(request.body);
  if (!parsed.success) {
    response.status(400).json({ error: 'invalid_body' });
    return;
  }
  response.json({ balance: await tpcbLike(parsed.data) });
});

app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => {
  process.stderr.write(`http ceiling server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  response.status(500).json({ error: 'internal_error' });
});

const server = app.listen(environment.PORT, environment.HOST);

process.once('SIGTERM', () => {
  server.close(() => {
    void sql.end({ timeout: closeTimeoutSeconds }).then(() => process.exit(0));
  });
});
