// `cashloop config set|get|unset|list|path`: a profile of defaults kept in the user's config dir
// ($XDG_CONFIG_HOME/cashloop/config.json), as gh and the stripe CLI keep theirs.
import type { Command } from 'commander';
import { fields, globalsOf, print } from '../client.ts';
import { CliError, configFile, configKeys, readStoredConfig, writeStoredConfig, type ConfigKey, type Environment } from '../settings.ts';

function checkedKey(key: string): ConfigKey {
  if (!(configKeys as readonly string[]).includes(key)) throw new CliError(`Unknown config key ${key}; use one of ${configKeys.join(', ')}.`, 'invalid_option');
  return key as ConfigKey;
}

/** The stored values with the operator key masked. */
function shown(config: Partial<Record<ConfigKey, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(config).map(([key, value]) => [key, key === 'operator-key' && value ? `${value.slice(0, 4)}…` : value]));
}

export function registerConfigCommands(program: Command, env: Environment): void {
  const config = program.command('config').description(`Defaults for url, operator-key and data-dir (kept in ${configFile(env).replace(env.HOME ?? '\0', '~')})`);

  config
    .command('set')
    .description('Store a default: url, operator-key or data-dir')
    .argument('<key>', configKeys.join(', '))
    .argument('<value>')
    .action((key: string, value: string, _options, command: Command) => {
      const checked = checkedKey(key);
      if (checked === 'url' && !/^https?:\/\//.test(value)) throw new CliError('url must start with http:// or https://.', 'invalid_option');
      const file = writeStoredConfig(env, { ...readStoredConfig(env), [checked]: value });
      print(globalsOf(command), { file, [checked]: shown({ [checked]: value })[checked] }, () => [`${checked} set in ${file}`]);
    });

  config
    .command('get')
    .argument('<key>', configKeys.join(', '))
    .description('Print a stored default')
    .action((key: string, _options, command: Command) => {
      const value = readStoredConfig(env)[checkedKey(key)];
      print(globalsOf(command), { [key]: value ?? null }, () => [value ?? '']);
    });

  config
    .command('unset')
    .argument('<key>', configKeys.join(', '))
    .description('Remove a stored default')
    .action((key: string, _options, command: Command) => {
      const checked = checkedKey(key);
      const { [checked]: _removed, ...rest } = readStoredConfig(env);
      const file = writeStoredConfig(env, rest);
      print(globalsOf(command), { file }, () => [`${checked} removed from ${file}`]);
    });

  config
    .command('list')
    .description('Show the stored defaults (the operator key masked)')
    .action((_options, command: Command) => {
      const stored = shown(readStoredConfig(env));
      print(globalsOf(command), stored, () => (Object.keys(stored).length === 0 ? [`(nothing stored in ${configFile(env)})`] : fields(Object.entries(stored))));
    });

  config
    .command('path')
    .description('Print where the defaults are kept')
    .action(() => void process.stdout.write(`${configFile(env)}\n`));
}
