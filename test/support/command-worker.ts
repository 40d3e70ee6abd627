// A separate process that opens its own engine on a shared database and Redis and runs many
// concurrent commands on one actor. Arguments: databaseUrl redisUrl lockKeyPrefix actorId count.
import { createEngine } from '../../engine/engine.ts';
import { loadConfig } from '../../engine/config.ts';
import { createLogger } from '../../engine/logger.ts';
import { createMetrics } from '../../engine/metrics.ts';
import { counter } from './counter.ts';

const [databaseUrl, redisUrl, lockKeyPrefix, actorId, countText] = process.argv.slice(2);
const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOG_LEVEL: 'error' });
const engine = await createEngine({ config, logger: createLogger('error', { silent: true }), metrics: createMetrics(), lockKeyPrefix });
const count = Number(countText);
await Promise.all(
  Array.from({ length: count }, () =>
    engine.commands.run('counter.add', [{ kind: counter.kind, id: actorId }], async (unit) => {
      await unit.load(counter, actorId);
      unit.send(counter, actorId, { type: 'counter.add', by: 1 });
    }),
  ),
);
await engine.close();
process.stdout.write('done\n');
