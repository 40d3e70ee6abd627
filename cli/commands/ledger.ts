// `cashloop cash issuer|issue|holdings`, `cashloop audit`, `cashloop account add|list` and
// `cashloop fx set|list`: the cash ledger through the admin API.
import type { Command } from 'commander';
import { CliError, globalsOf, operatorApi, print, table } from '../client.ts';
import type { Environment } from '../settings.ts';
import { profileIdOf, serviceUidOf } from '../uids.ts';

export function registerLedgerCommands(program: Command, env: Environment): void {
  registerCashCommands(program, env);
  registerAuditCommand(program, env);
  registerAccountCommands(program, env);
  registerFxCommands(program, env);
}

function registerCashCommands(program: Command, env: Environment): void {
  const cash = program.command('cash').description('Issue open loop cash and inspect holdings');

  cash
    .command('issuer')
    .description('Show the designated open loop issuer, or designate one (it needs the issue_open_loop feature)')
    .option('--uid <uid>', 'the issuer profile: its id or any UID, e.g. service:1234567890')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer = options.uid
        ? await api.call(api.client.POST('/admin/ledger/issuer', { body: { uid: await serviceUidOf(api, options.uid, '--uid') } }))
        : await api.call(api.client.GET('/admin/ledger/issuer'));
      print(globals, answer, () => [`issuer ${answer.issuer_id ?? '(none designated)'}`]);
    });

  cash
    .command('issue')
    .description('Issue open loop cash from the designated issuer to a profile')
    .requiredOption('--to <uid>', 'the recipient: its id or any UID, e.g. service:1234567890 or pat@example.com')
    .requiredOption('--amount <amount>', 'decimal amount, e.g. 100.00')
    .requiredOption('--currency <code>', 'ISO 4217 currency, e.g. USD')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const toUid = await serviceUidOf(api, options.to, '--to');
      const answer = await api.call(api.client.POST('/admin/ledger/issue', { body: { to_uid: toUid, amount: options.amount, currency: options.currency } }), { currency: options.currency });
      print(globals, answer, () => [`issued ${options.amount} ${options.currency} to ${answer.profile_id}`, `transfer ${answer.transfer_id}`, `serial   ${answer.serial_number}`]);
    });

  cash
    .command('holdings')
    .description("A profile's holdings per loop and currency")
    .argument('<profile>', 'its id or any UID')
    .action(async (uid: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const profileId = await profileIdOf(api, uid, '<profile>');
      const answer = await api.call(api.client.GET('/admin/ledger/holdings/{profileId}', { params: { path: { profileId } } }));
      print(globals, answer, () =>
        answer.holdings.length === 0 ? ['(no cash)'] : table(['loop', 'currency', 'amount'], answer.holdings.map((holding: any) => [holding.loop_id, holding.currency, holding.amount]), { rightAligned: [2] }),
      );
    });
}

function registerAuditCommand(program: Command, env: Environment): void {
  program
    .command('audit')
    .description('Verify the ledger: per loop and currency issued = held + in flight + reserved + redeemed + expired, and each design\'s reserve; exits 1 on a problem')
    .action(async (_options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const report = await api.call(api.client.GET('/admin/ledger/audit'));
      const reserves: any[] = (report as any).reserves ?? [];
      const owed: any[] = (report as any).owed ?? [];
      print(globals, report, () => [
        ...table(
          ['loop', 'currency', 'issued', 'held', 'in_flight', 'reserved', 'redeemed', 'expired'],
          report.totals.map((total: any) => [total.loop_id, total.currency, total.issued, total.held, total.in_flight, total.reserved, total.redeemed, total.expired]),
          { rightAligned: [2, 3, 4, 5, 6, 7] },
        ),
        ...(reserves.length > 0
          ? ['', 'design reserves', ...table(['design', 'currency', 'reserve', 'needed'], reserves.map((row) => [row.design_id, row.currency, row.reserve, row.needed]), { rightAligned: [2, 3] })]
          : []),
        ...(owed.length > 0
          ? ['', 'reserve owed by distributors (closed-loop sales)', ...table(['design', 'distributor', 'currency', 'reserve_owed', 'pending', 'settled'],
            owed.map((row) => [row.design_id, row.distributor_id, row.currency, row.reserve_owed, row.pending, row.settled]), { rightAligned: [3, 4, 5] })]
          : []),
        report.ok ? 'audit ok' : `audit FAILED:\n  ${report.problems.join('\n  ')}`,
      ]);
      if (!report.ok) throw new CliError('The ledger audit failed.', 'audit_failed');
    });
}

function registerAccountCommands(program: Command, env: Environment): void {
  const account = program.command('account').description('Bank (DFI) accounts of profiles');
  account
    .command('add')
    .description('Register a bank account to a profile')
    .requiredOption('--uid <uid>', 'the owner: its id or any UID')
    .requiredOption('--routing <number>', '9-digit routing number')
    .requiredOption('--account <number>', 'account number')
    .option('--type <type>', 'checking or savings', 'checking')
    .option('--currency <code>', 'currency the account accepts', 'USD')
    .option('--bank-name <name>', 'bank (RDFI) name')
    .option('--holder <name>', 'account holder name')
    .option('--alias <alias>', 'a name the owner sees')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const body: Record<string, unknown> = { uid: await serviceUidOf(api, options.uid, '--uid'), routing_number: options.routing, account_number: options.account, ach_type: options.type, currency: options.currency };
      if (options.bankName) body.rdfi_name = options.bankName;
      if (options.holder) body.holder_name = options.holder;
      if (options.alias) body.alias = options.alias;
      const answer = await api.call(api.client.POST('/admin/ledger/accounts', { body: body as never }), { currency: options.currency });
      print(globals, answer, () => [`account ${answer.account_id} registered to ${answer.profile_id}`]);
    });
  account
    .command('list')
    .description('List registered bank accounts, newest first (account numbers show their last four digits)')
    .option('--profile <profile>', 'only this profile\'s accounts (its id or any UID)')
    .option('--limit <n>', 'at most this many', '100')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const profileId = options.profile === undefined ? undefined : await profileIdOf(api, options.profile, '--profile');
      const answer = await api.call(api.client.GET('/admin/ledger/accounts', { params: { query: { limit: options.limit, profile_id: profileId } } }));
      print(globals, answer, () =>
        answer.accounts.length === 0
          ? ['(no accounts)']
          : table(
              ['account_id', 'profile_id', 'bank', 'routing', 'account', 'type', 'currency', 'alias'],
              answer.accounts.map((item: any) => [item.account_id, item.profile_id, item.rdfi_name, item.routing_number, `...${item.account_number_last4}`, item.ach_type, item.currency, item.alias || '-']),
            ),
      );
    });
}

function registerFxCommands(program: Command, env: Environment): void {
  const fx = program.command('fx').description('Exchange rates for send-fx');
  fx
    .command('set')
    .argument('<source_currency>')
    .argument('<dest_currency>')
    .argument('<rate>', 'dest units per source unit, e.g. 18.4')
    .action(async (source: string, dest: string, rate: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer = await api.call(api.client.POST('/admin/ledger/fx-rates', { body: { source_currency: source, dest_currency: dest, rate } }));
      print(globals, answer, () => table(['from', 'to', 'rate'], answer.rates.map((row: any) => [row.source_currency, row.dest_currency, row.rate])));
    });
  fx
    .command('list')
    .action(async (_options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer = await api.call(api.client.GET('/admin/ledger/fx-rates'));
      print(globals, answer, () => (answer.rates.length === 0 ? ['(no rates)'] : table(['from', 'to', 'rate'], answer.rates.map((row: any) => [row.source_currency, row.dest_currency, row.rate]))));
    });
}

