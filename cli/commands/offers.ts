// `cashloop offer create|list|show|close`: offers through the admin API. Merchants' apps use the
// /o calls with their own tokens; operators use these.
import type { Command } from 'commander';
import { CliError, globalsOf, operatorApi, print } from '../client.ts';
import type { Environment } from '../settings.ts';
import { profileIdOf } from '../uids.ts';

/** `free`, `funded`, `paycard` or `service:<price>`, optionally `=<option_id>` after it. */
export function parseOptionSpec(spec: string): Record<string, string> {
  const match = /^(free|funded|paycard|service)(?::(\d+(?:\.\d+)?))?(?:=([A-Za-z0-9_-]+))?$/.exec(spec);
  if (!match) throw new CliError(`--option ${spec}: write free, funded, paycard or service:<price>, optionally =<option_id>`);
  const option: Record<string, string> = { payment_type: match[1] };
  if (match[2]) option.price = match[2];
  if (match[3]) option.option_id = match[3];
  return option;
}

function offerLines(offer: any): string[] {
  const options = offer.options.map((option: any) => `${option.option_id} (${option.payment_type}${option.price !== '0.00' ? ` ${option.price}` : ''})`).join(', ');
  return [
    `offer ${offer.id}  ${offer.state}  ${offer.title}`,
    `  business ${offer.profile_id}  pays ${offer.amount} ${offer.currency} in loop ${offer.loop_id}${offer.distribution_plan_id ? ` (plan ${offer.distribution_plan_id})` : ''}`,
    `  stock ${offer.purchases_remain} of ${offer.quantity}  show_limit ${offer.show_limit}${offer.require_confirmation ? '  needs confirmed email' : ''}`,
    `  options ${options}`,
  ];
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerOfferCommands(program: Command, env: Environment): void {
  const offer = program.command('offer').description("Businesses' offers of brand cash or open loop cash");
  registerOfferCreate(offer, env);
  registerOfferReadsAndClose(offer, env);
}

function registerOfferCreate(offer: Command, env: Environment): void {
  offer
    .command('create')
    .description('Create an offer for a business (or for the issuer of --design)')
    .option('--profile <profile>', 'the business: its id or any UID (not needed with --design: its issuer)')
    .requiredOption('--title <title>', 'what people see')
    .requiredOption('--amount <amount>', 'cash each unit pays out, e.g. 5.00')
    .requiredOption('--quantity <n>', 'units in stock')
    .option('--currency <code>', 'open loop currency (default USD; brand cash takes the design\'s)')
    .option('--design <design_id>', 'pay brand cash of this gl_design')
    .option('--plan <plan_id>', 'the distribution plan for --design')
    .option('--show-limit <n>', 'units one person may accept (default 1)')
    .option('--description <text>', 'longer text, searched by /o/find')
    .option('--option <spec>', 'free, funded, paycard or service:<price>, optionally =<option_id>; repeat for more', collect, [])
    .option('--require-confirmation', 'accepters need a confirmed email address')
    .option('--latitude <degrees>', 'where the offer is (default: the business location)')
    .option('--longitude <degrees>')
    .option('--expires <timestamp>', 'ISO 8601 end of validity')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const body: Record<string, unknown> = { title: options.title, amount: options.amount, quantity: options.quantity };
      if (options.profile) body.profile_id = await profileIdOf(api, options.profile, '--profile');
      if (options.currency) body.currency = options.currency;
      if (options.design) body.design_id = options.design;
      if (options.plan) body.distribution_plan_id = options.plan;
      if (options.showLimit) body.show_limit = options.showLimit;
      if (options.description) body.description = options.description;
      if (options.option.length > 0) body.options = options.option.map(parseOptionSpec);
      if (options.requireConfirmation) body.require_confirmation = true;
      if (options.latitude !== undefined) body.latitude = options.latitude;
      if (options.longitude !== undefined) body.longitude = options.longitude;
      if (options.expires) body.expires_at = options.expires;
      const answer: any = await api.call(api.client.POST('/admin/offers', { body: body as never }));
      print(globals, answer, () => offerLines(answer));
    });
}

function registerOfferReadsAndClose(offer: Command, env: Environment): void {
  offer
    .command('list')
    .description('Offers, newest first')
    .option('--profile <profile>', 'of one business: its id or any UID')
    .option('--state <state>', 'open or closed')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const query: Record<string, string> = {};
      if (options.profile) query.profile_id = await profileIdOf(api, options.profile, '--profile');
      if (options.state) query.state = options.state;
      const answer: any = await api.call(api.client.GET('/admin/offers', { params: { query: query as never } }));
      print(globals, answer, () => (answer.offers.length === 0 ? ['(no offers)'] : answer.offers.map((row: any) => `${row.id}  ${row.state}  ${row.purchases_remain}/${row.quantity}  ${row.amount} ${row.currency}  ${row.title}`)));
    });

  offer
    .command('show')
    .argument('<offer_id>')
    .description('One offer in full')
    .action(async (offerId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.GET('/admin/offers/{offerId}', { params: { path: { offerId } } }));
      print(globals, answer, () => offerLines(answer.offer));
    });

  offer
    .command('close')
    .argument('<offer_id>')
    .description('Close an offer for good')
    .action(async (offerId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.POST('/admin/offers/{offerId}/close', { params: { path: { offerId } }, body: {} }));
      print(globals, answer, () => [`offer ${answer.id} closed`]);
    });
}
