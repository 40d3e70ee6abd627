// `cashloop profile create|list|show|set|locate|feature|wallet|manager` and `cashloop business
// create`: profiles through the admin API.
import type { Command } from 'commander';
import { CliError, fields, globalsOf, operatorApi, print, table } from '../client.ts';
import type { Environment } from '../settings.ts';
import { profileIdOf, serviceUidOf, showProfile } from '../uids.ts';

function parseBoolean(text: string): boolean {
  if (/^(true|yes|1|on)$/i.test(text)) return true;
  if (/^(false|no|0|off)$/i.test(text)) return false;
  throw new CliError(`Expected true or false, got ${text}.`, 'invalid_option');
}

function profileLines(shown: any): string[] {
  const profile = shown.profile ?? shown;
  const pairs: [string, unknown][] = [
    ['id', profile.id],
    ['title', profile.title],
    ['kind', profile.is_individual ? 'individual' : 'business'],
    ['username', profile.username ?? ''],
    ['support_paycode', profile.support_paycode],
    ['preferred_currency', profile.preferred_currency],
  ];
  if (!profile.is_individual) pairs.push(['location', profile.latitude ? `${profile.latitude}, ${profile.longitude}` : '(none)']);
  if (shown.site !== undefined) pairs.push(['site', shown.site], ['features', shown.features], ['managers', shown.managers], ['wallet', shown.wallet_state]);
  return fields(pairs);
}

export function registerProfileCommands(program: Command, env: Environment): void {
  const profile = program.command('profile').description('Inspect and adjust profiles');
  registerProfileCreation(program, profile, env);
  registerProfileReads(profile, env);
  registerProfileChanges(profile, env);
  registerProfileAdministration(profile, env);
}

function registerProfileCreation(program: Command, profile: Command, env: Environment): void {
  profile
    .command('create')
    .description('Create an individual profile (and its wallet)')
    .requiredOption('--first-name <name>', 'first name')
    .requiredOption('--last-name <name>', 'last name')
    .option('--uid <login>', 'an email address or phone number, confirmed at once (the person signs in with it)')
    .option('--site <site>', 'the site of the apps that will see it', 'default')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const body = { first_name: options.firstName, last_name: options.lastName, site: options.site, ...(options.uid ? { uid: options.uid } : {}) };
      const created = await api.call(api.client.POST('/admin/profiles', { body }));
      print(globals, created, () => profileLines(created.profile));
    });

  const business = program.command('business').description('Create business profiles');
  business
    .command('create')
    .description('Create a business profile (and its wallet) managed by a personal profile')
    .requiredOption('--name <name>', 'the business name')
    .requiredOption('--manager <uid>', 'the managing personal profile: its id or any UID (service:, email:, phone:, username:)')
    .requiredOption('--line1 <text>', 'street address')
    .requiredOption('--city <city>', 'city')
    .requiredOption('--country <code>', 'two-letter country code, e.g. US')
    .option('--state <code>', 'two-letter state (required in the US)')
    .requiredOption('--zip <zip>', 'postal code')
    .option('--dba <name>', 'doing-business-as name')
    .option('--web-site <url>', 'web site')
    .option('--phone <phone>', 'phone number')
    .option('--site <site>', 'the site of the apps that will see it', 'default')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const address = { line1: options.line1, city: options.city, country: options.country, zip: options.zip, ...(options.state ? { state: options.state } : {}) };
      const optional = Object.fromEntries(Object.entries({ dba: options.dba, web_site: options.webSite, phone: options.phone }).filter(([, value]) => value !== undefined));
      const body = { business_name: options.name, manager_uid: await serviceUidOf(api, options.manager, '--manager'), business: address, site: options.site, ...optional };
      const created = await api.call(api.client.POST('/admin/businesses', { body }));
      print(globals, created, () => profileLines(created.profile));
    });
}

function registerProfileReads(profile: Command, env: Environment): void {
  profile
    .command('list')
    .description('List profiles, newest first')
    .option('--site <site>', 'only this site')
    .option('--kind <kind>', 'individual or business')
    .option('--limit <n>', 'at most this many', '100')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer = await api.call(api.client.GET('/admin/profiles', { params: { query: { limit: options.limit, site: options.site, kind: options.kind } } }));
      print(globals, answer, () =>
        answer.profiles.length === 0
          ? ['(no profiles)']
          : table(['id', 'kind', 'title', 'username', 'site', 'created'], answer.profiles.map((item: any) => [item.id, item.kind, item.title, item.username || '-', item.site, item.created_at.slice(0, 19).replace('T', ' ')])),
      );
    });

  profile
    .command('show')
    .description('Show a profile with its features, managers and wallet state')
    .argument('<profile>', 'its id or any UID')
    .action(async (uid: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const shown = await showProfile(api, uid, '<profile>');
      print(globals, shown, () => profileLines(shown));
    });
}

function registerProfileChanges(profile: Command, env: Environment): void {
  profile
    .command('set')
    .description('Set profile flags')
    .argument('<profile>', 'its id or any UID')
    .option('--support-paycode <bool>', 'accept payment codes (true or false)')
    .option('--preferred-currency <code>', 'ISO 4217 code, or "" to clear')
    .option('--username <name>', 'username, or "" to clear')
    .action(async (uid: string, options, command: Command) => {
      const globals = globalsOf(command);
      const body: Record<string, unknown> = {};
      if (options.supportPaycode !== undefined) body.support_paycode = parseBoolean(options.supportPaycode);
      if (options.preferredCurrency !== undefined) body.preferred_currency = options.preferredCurrency;
      if (options.username !== undefined) body.username = options.username;
      if (Object.keys(body).length === 0) throw new CliError('Nothing to set: give --support-paycode, --preferred-currency or --username.', 'invalid_option');
      const api = operatorApi(globals, env);
      const profileId = await profileIdOf(api, uid, '<profile>');
      const updated = await api.call(api.client.PATCH('/admin/profiles/{profileId}', { params: { path: { profileId } }, body }), { currency: options.preferredCurrency });
      print(globals, updated, () => profileLines(updated));
    });

  profile
    .command('locate')
    .description('Set or clear a business\'s location (degrees); search sorts closest businesses first')
    .argument('<profile>', 'its id or any UID')
    .option('--latitude <degrees>', 'latitude, -90 to 90 (e.g. 41.8781)')
    .option('--longitude <degrees>', 'longitude, -180 to 180 (e.g. -87.6298)')
    .option('--clear', 'remove the location', false)
    .action(async (uid: string, options, command: Command) => {
      const globals = globalsOf(command);
      const given = options.latitude !== undefined || options.longitude !== undefined;
      if (options.clear && given) throw new CliError('Give either --clear or --latitude with --longitude, not both.', 'invalid_option');
      if (!options.clear && (options.latitude === undefined || options.longitude === undefined)) throw new CliError('Give --latitude and --longitude together, or --clear.', 'invalid_option');
      const api = operatorApi(globals, env);
      const params = { path: { profileId: await profileIdOf(api, uid, '<profile>') } };
      // Degrees go as the typed strings, so the server rounds exact decimals, not floats.
      const updated = options.clear
        ? await api.call(api.client.DELETE('/admin/profiles/{profileId}/location', { params, body: {} }))
        : await api.call(api.client.PUT('/admin/profiles/{profileId}/location', { params, body: { latitude: options.latitude, longitude: options.longitude } }));
      print(globals, updated, () => profileLines(updated));
    });
}

function registerProfileAdministration(profile: Command, env: Environment): void {
  const feature = profile.command('feature').description('Profile features: design_gl, bill, pull_payment, issue_open_loop');
  feature
    .command('add')
    .argument('<profile>', 'its id or any UID')
    .argument('<feature>')
    .action(async (uid: string, name: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const profileId = await profileIdOf(api, uid, '<profile>');
      const answer = await api.call(api.client.POST('/admin/profiles/{profileId}/features', { params: { path: { profileId } }, body: { feature: name as never } }));
      print(globals, answer, () => [`features ${answer.features.join(', ')}`]);
    });
  feature
    .command('remove')
    .argument('<profile>', 'its id or any UID')
    .argument('<feature>')
    .action(async (uid: string, name: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const profileId = await profileIdOf(api, uid, '<profile>');
      const answer = await api.call(api.client.DELETE('/admin/profiles/{profileId}/features/{feature}', { params: { path: { profileId, feature: name } }, body: {} }));
      print(globals, answer, () => [`features ${answer.features.join(', ') || '(none)'}`]);
    });

  profile
    .command('wallet')
    .description('Suspend, unsuspend or close a wallet')
    .argument('<profile>', 'its id or any UID')
    .argument('<action>', 'suspend, unsuspend or close')
    .action(async (uid: string, action: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const profileId = await profileIdOf(api, uid, '<profile>');
      const answer = await api.call(api.client.POST('/admin/profiles/{profileId}/wallet', { params: { path: { profileId } }, body: { action: action as never } }));
      print(globals, answer, () => [`wallet ${answer.wallet_state}`]);
    });

  profile
    .command('manager')
    .description('Add a managing personal profile to a business')
    .argument('<business>', 'its id or any UID')
    .argument('<manager>', 'the personal profile: its id or any UID')
    .action(async (business: string, manager: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const businessId = await profileIdOf(api, business, '<business>');
      const body = { manager_uid: await serviceUidOf(api, manager, '<manager>') };
      const answer = await api.call(api.client.POST('/admin/profiles/{profileId}/managers', { params: { path: { profileId: businessId } }, body }));
      print(globals, answer, () => [`managers ${answer.managers.join(', ')}`]);
    });
}
