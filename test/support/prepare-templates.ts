// Builds the migrated database template of this run's backend (test/run.ts calls it once).
import { loadConfig } from '../../engine/config.ts';
import { prepareTemplates } from './templates.ts';

await prepareTemplates(loadConfig().databaseUrl);
