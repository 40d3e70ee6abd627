// Starts an API server process on a shared database and Redis, for multi-process stories.
// Environment: DATABASE_URL, REDIS_URL, LOCK_KEY_PREFIX, CASHLOOP_OPERATOR_KEY. Prints "port <n>".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticatorsFor } from '../../api/authenticators.ts';
import { createApp } from '../../api/server.ts';
import { attachBidirectional } from '../../api/feed/socket.ts';
import { loadConfig } from '../../engine/config.ts';
import { createEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/logger.ts';
import { createMetrics } from '../../engine/metrics.ts';
import { surviveOutageRejections } from '../../api/http/outage-rejections.ts';

const config = loadConfig({ CASHLOOP_RATE_LIMIT_SCALE: '1000', CASHLOOP_PASSWORD_HASH_COST: 'test', CASHLOOP_IMAGE_DECODER_PRIORITY: 'normal', ...process.env, LOG_LEVEL: 'error', PORT: '0', CASHLOOP_CHECK_RESPONSES: '1', CASHLOOP_COMMAND_SCOPE_CHECKS: '1' });
// As api/main.ts: an outage error no one awaited is logged to stderr, not fatal.
surviveOutageRejections(createLogger('warn'));
const engine = await createEngine({ config, logger: createLogger('error', { silent: true }), metrics: createMetrics(), lockKeyPrefix: process.env.LOCK_KEY_PREFIX });
const authenticators = authenticatorsFor(engine, config.operatorKey!);
const server = createServer(createApp(engine, authenticators));
const bidirectional = attachBidirectional(server, engine, authenticators);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => {
  bidirectional.close();
  server.close();
  void engine.close().then(() => process.exit(0));
});
