// `cashloop app create|show|list`: apps through the admin API.
import type { Command } from 'commander';
import { commaList, fields, globalsOf, operatorApi, print, table, valueOrPrompt } from '../client.ts';
import type { Environment } from '../settings.ts';

export function registerAppCommands(program: Command, env: Environment): void {
  const app = program.command('app').description('Manage apps (client_id and client_secret)');

  app
    .command('create')
    .description('Create an app; prints its client_id and client_secret (shown only once)')
    .option('--name <name>', 'app name')
    .option('--permissions <list>', 'app permissions, comma-separated: create_profile,get_profile,control_profile', '')
    .option('--redirect-uri <uri>', 'OAuth redirect URI (repeatable)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--site <site>', 'the site whose profiles the app may create and control', 'default')
    .option('--public', 'a public app (may sign users up from offers)', false)
    .option('--implicit-grant', 'allow the OAuth implicit grant', false)
    .option('--user-permissions <list>', 'user permissions the app may request beyond the default set, comma-separated, e.g. create_design,edit_design,view_design', '')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const name = await valueOrPrompt(options.name, '--name', 'App name');
      const permissions = commaList(options.permissions);
      const userPermissions = commaList(options.userPermissions);
      const api = operatorApi(globals, env);
      const created = await api.call(
        api.client.POST('/admin/apps', {
          body: {
            name, permissions, redirect_uris: options.redirectUri, site: options.site, public: options.public, implicit_grant: options.implicitGrant,
            user_permissions: userPermissions,
          },
        }),
      );
      print(globals, created, () => [
        ...fields([
          ['client_id', created.client_id],
          ['client_secret', created.client_secret],
          ['site', created.site],
          ['permissions', created.permissions],
          ['user_permissions', created.user_permissions.length > 0 ? created.user_permissions : '(default set only)'],
        ]),
        'Keep the secret on a server; it is not shown again.',
      ]);
    });

  app
    .command('show')
    .description('Show an app (never its secret)')
    .argument('<client_id>')
    .action(async (clientId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const shown = await api.call(api.client.GET('/admin/apps/{clientId}', { params: { path: { clientId } } }));
      print(globals, shown, () => fields(Object.entries(shown as Record<string, unknown>)));
    });

  app
    .command('list')
    .description('List apps, newest first')
    .option('--limit <n>', 'at most this many', '100')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer = await api.call(api.client.GET('/admin/apps', { params: { query: { limit: options.limit } } }));
      print(globals, answer, () =>
        answer.apps.length === 0
          ? ['(no apps)']
          : table(['client_id', 'name', 'site', 'permissions', 'created'], answer.apps.map((item: any) => [item.client_id, item.name, item.site, item.permissions.join(',') || '-', item.created_at.slice(0, 19).replace('T', ' ')])),
      );
    });
}
