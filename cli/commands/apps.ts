// `cashloop app create|show`: apps through the admin API.
import type { Command } from 'commander';
import { adminClient, globalsOf, print, valueOrPrompt } from '../client.ts';

export function registerAppCommands(program: Command, env?: Record<string, string | undefined>): void {
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
      const permissions = String(options.permissions).split(',').map((part) => part.trim()).filter(Boolean);
      const userPermissions = String(options.userPermissions).split(',').map((part) => part.trim()).filter(Boolean);
      const created = await adminClient(globals, env).request('POST', '/admin/apps', {
        name,
        permissions,
        redirect_uris: options.redirectUri,
        site: options.site,
        public: options.public,
        implicit_grant: options.implicitGrant,
        user_permissions: userPermissions,
      });
      print(globals, created, () => [
        `client_id     ${created.client_id}`,
        `client_secret ${created.client_secret}`,
        `site          ${created.site}`,
        `permissions   ${created.permissions.join(', ') || '(none)'}`,
        `user_permissions ${created.user_permissions.join(', ') || '(default set only)'}`,
        'Keep the secret on a server; it is not shown again.',
      ]);
    });

  app
    .command('show')
    .description('Show an app (never its secret)')
    .argument('<client_id>')
    .action(async (clientId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const shown = await adminClient(globals, env).request('GET', `/admin/apps/${encodeURIComponent(clientId)}`);
      print(globals, shown, () => Object.entries(shown).map(([key, value]) => `${key.padEnd(17)}${Array.isArray(value) ? value.join(', ') || '(none)' : value}`));
    });
}
