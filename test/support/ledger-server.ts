// The set-up of most wallet and transfer stories: a test server whose open loop issuer is
// designated (ledgerWorld), so operators can issue cash to the people a story makes.
import { ledgerWorld, type LedgerWorld } from '../ledger-api-support.ts';
import { startTestServer, type TestServer } from './http.ts';

export async function startLedgerServer(): Promise<{ server: TestServer; world: LedgerWorld }> {
  const server = await startTestServer();
  return { server, world: await ledgerWorld(server) };
}
