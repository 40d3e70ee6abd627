// `cashloop profile show|set|locate|feature|wallet|manager`: profiles through the admin API.
import type { Command } from 'commander';
import { adminClient, CliError, globalsOf, print } from '../client.ts';

function parseBoolean(text: string): boolean {
  if (/^(true|yes|1|on)$/i.test(text)) return true;
  if (/^(false|no|0|off)$/i.test(text)) return false;
  throw new CliError(`Expected true or false, got ${text}.`);
}

function profileLines(shown: any): string[] {
  const profile = shown.profile ?? shown;
  const lines = [
    `id                  ${profile.id}`,
    `title               ${profile.title}`,
    `kind                ${profile.is_individual ? 'individual' : 'business'}`,
    `username            ${profile.username ?? ''}`,
    `support_paycode     ${profile.support_paycode}`,
    `preferred_currency  ${profile.preferred_currency}`,
  ];
  if (!profile.is_individual) lines.push(`location            ${profile.latitude ? `${profile.latitude}, ${profile.longitude}` : '(none)'}`);
  if (shown.site !== undefined) lines.push(`site                ${shown.site}`, `features            ${shown.features.join(', ')}`, `managers            ${shown.managers.join(', ')}`, `wallet              ${shown.wallet_state}`);
  return lines;
}

export function registerProfileCommands(program: Command, env?: Record<string, string | undefined>): void {
  const profile = program.command('profile').description('Inspect and adjust profiles');

  profile
    .command('show')
    .description('Show a profile with its features, managers and wallet state')
    .argument('<profile_id>')
    .action(async (profileId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const shown = await adminClient(globals, env).request('GET', `/admin/profiles/${encodeURIComponent(profileId)}`);
      print(globals, shown, () => profileLines(shown));
    });

  profile
    .command('set')
    .description('Set profile flags')
    .argument('<profile_id>')
    .option('--support-paycode <bool>', 'accept payment codes (true or false)')
    .option('--preferred-currency <code>', 'ISO 4217 code, or "" to clear')
    .option('--username <name>', 'username, or "" to clear')
    .action(async (profileId: string, options, command: Command) => {
      const globals = globalsOf(command);
      const body: Record<string, unknown> = {};
      if (options.supportPaycode !== undefined) body.support_paycode = parseBoolean(options.supportPaycode);
      if (options.preferredCurrency !== undefined) body.preferred_currency = options.preferredCurrency;
      if (options.username !== undefined) body.username = options.username;
      if (Object.keys(body).length === 0) throw new CliError('Nothing to set: give --support-paycode, --preferred-currency or --username.');
      const updated = await adminClient(globals, env).request('PATCH', `/admin/profiles/${encodeURIComponent(profileId)}`, body);
      print(globals, updated, () => profileLines(updated));
    });

  profile
    .command('locate')
    .description('Set or clear a business\'s location (degrees); search sorts closest businesses first')
    .argument('<profile_id>')
    .option('--latitude <degrees>', 'latitude, -90 to 90 (e.g. 41.8781)')
    .option('--longitude <degrees>', 'longitude, -180 to 180 (e.g. -87.6298)')
    .option('--clear', 'remove the location', false)
    .action(async (profileId: string, options, command: Command) => {
      const globals = globalsOf(command);
      const given = options.latitude !== undefined || options.longitude !== undefined;
      if (options.clear && given) throw new CliError('Give either --clear or --latitude with --longitude, not both.');
      if (!options.clear && (options.latitude === undefined || options.longitude === undefined)) throw new CliError('Give --latitude and --longitude together, or --clear.');
      const locationPath = `/admin/profiles/${encodeURIComponent(profileId)}/location`;
      const client = adminClient(globals, env);
      // Degrees go as the typed strings, so the server rounds exact decimals, not floats.
      const updated = options.clear
        ? await client.request('DELETE', locationPath)
        : await client.request('PUT', locationPath, { latitude: options.latitude, longitude: options.longitude });
      print(globals, updated, () => profileLines(updated));
    });

  const feature = profile.command('feature').description('Profile features: design_gl, bill, pull_payment, issue_open_loop');
  feature
    .command('add')
    .argument('<profile_id>')
    .argument('<feature>')
    .action(async (profileId: string, name: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const answer = await adminClient(globals, env).request('POST', `/admin/profiles/${encodeURIComponent(profileId)}/features`, { feature: name });
      print(globals, answer, () => [`features ${answer.features.join(', ')}`]);
    });
  feature
    .command('remove')
    .argument('<profile_id>')
    .argument('<feature>')
    .action(async (profileId: string, name: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const answer = await adminClient(globals, env).request('DELETE', `/admin/profiles/${encodeURIComponent(profileId)}/features/${encodeURIComponent(name)}`);
      print(globals, answer, () => [`features ${answer.features.join(', ') || '(none)'}`]);
    });

  profile
    .command('wallet')
    .description('Suspend, unsuspend or close a wallet')
    .argument('<profile_id>')
    .argument('<action>', 'suspend, unsuspend or close')
    .action(async (profileId: string, action: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const answer = await adminClient(globals, env).request('POST', `/admin/profiles/${encodeURIComponent(profileId)}/wallet`, { action });
      print(globals, answer, () => [`wallet ${answer.wallet_state}`]);
    });

  profile
    .command('manager')
    .description('Add a managing personal profile to a business')
    .argument('<business_id>')
    .argument('<manager_uid>')
    .action(async (businessId: string, managerUid: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const answer = await adminClient(globals, env).request('POST', `/admin/profiles/${encodeURIComponent(businessId)}/managers`, { manager_uid: managerUid });
      print(globals, answer, () => [`managers ${answer.managers.join(', ')}`]);
    });
}
