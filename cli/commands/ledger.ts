// `cashloop cash issuer|issue|holdings`, `cashloop audit`, `cashloop account add` and
// `cashloop fx set|list`: the cash ledger through the admin API.
import type { Command } from 'commander';
import { adminClient, CliError, globalsOf, print } from '../client.ts';

export function registerLedgerCommands(program: Command, env?: Record<string, string | undefined>): void {
  const cash = program.command('cash').description('Issue open loop cash and inspect holdings');

  cash
    .command('issuer')
    .description('Show the designated open loop issuer, or designate one (it needs the issue_open_loop feature)')
    .option('--uid <uid>', 'UID of the issuer profile, e.g. service:1234567890')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const client = adminClient(globals, env);
      const answer = options.uid ? await client.request('POST', '/admin/ledger/issuer', { uid: options.uid }) : await client.request('GET', '/admin/ledger/issuer');
      print(globals, answer, () => [`issuer ${answer.issuer_id ?? '(none designated)'}`]);
    });

  cash
    .command('issue')
    .description('Issue open loop cash from the designated issuer to a profile')
    .requiredOption('--to <uid>', 'recipient UID, e.g. service:1234567890 or email:pat@example.com')
    .requiredOption('--amount <amount>', 'decimal amount, e.g. 100.00')
    .requiredOption('--currency <code>', 'ISO 4217 currency, e.g. USD')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const answer = await adminClient(globals, env).request('POST', '/admin/ledger/issue', { to_uid: options.to, amount: options.amount, currency: options.currency });
      print(globals, answer, () => [`issued ${options.amount} ${options.currency} to ${answer.profile_id}`, `transfer ${answer.transfer_id}`, `serial   ${answer.serial_number}`]);
    });

  cash
    .command('holdings')
    .description("A profile's holdings per loop and currency")
    .argument('<profile_id>')
    .action(async (profileId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const answer = await adminClient(globals, env).request('GET', `/admin/ledger/holdings/${encodeURIComponent(profileId)}`);
      print(globals, answer, () => (answer.holdings.length === 0 ? ['(no cash)'] : answer.holdings.map((holding: any) => `loop ${holding.loop_id}  ${holding.amount} ${holding.currency}`)));
    });

  program
    .command('audit')
    .description('Verify the ledger: per loop and currency issued = held + in flight + reserved + redeemed + expired, and each design\'s reserve; exits 1 on a problem')
    .action(async (_options, command: Command) => {
      const globals = globalsOf(command);
      const report = await adminClient(globals, env).request('GET', '/admin/ledger/audit');
      const columns = ['loop_id', 'currency', 'issued', 'held', 'in_flight', 'reserved', 'redeemed', 'expired'];
      const reserveColumns = ['design_id', 'currency', 'reserve', 'needed'];
      print(globals, report, () => [
        ...alignedTable(columns, report.totals),
        ...(report.reserves?.length ? ['', 'design reserves', ...alignedTable(reserveColumns, report.reserves)] : []),
        report.ok ? 'audit ok' : `audit FAILED:\n  ${report.problems.join('\n  ')}`,
      ]);
      if (!report.ok) throw new CliError('the ledger audit failed');
    });

  const account = program.command('account').description('Bank (DFI) accounts of profiles');
  account
    .command('add')
    .description('Register a bank account to a profile')
    .requiredOption('--uid <uid>', 'owner UID')
    .requiredOption('--routing <number>', '9-digit routing number')
    .requiredOption('--account <number>', 'account number')
    .option('--type <type>', 'checking or savings', 'checking')
    .option('--currency <code>', 'currency the account accepts', 'USD')
    .option('--bank-name <name>', 'bank (RDFI) name')
    .option('--holder <name>', 'account holder name')
    .option('--alias <alias>', 'a name the owner sees')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const body: Record<string, unknown> = { uid: options.uid, routing_number: options.routing, account_number: options.account, ach_type: options.type, currency: options.currency };
      if (options.bankName) body.rdfi_name = options.bankName;
      if (options.holder) body.holder_name = options.holder;
      if (options.alias) body.alias = options.alias;
      const answer = await adminClient(globals, env).request('POST', '/admin/ledger/accounts', body);
      print(globals, answer, () => [`account ${answer.account_id} registered to ${answer.profile_id}`]);
    });

  const fx = program.command('fx').description('Exchange rates for send-fx');
  fx
    .command('set')
    .argument('<source_currency>')
    .argument('<dest_currency>')
    .argument('<rate>', 'dest units per source unit, e.g. 18.4')
    .action(async (source: string, dest: string, rate: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const answer = await adminClient(globals, env).request('POST', '/admin/ledger/fx-rates', { source_currency: source, dest_currency: dest, rate });
      print(globals, answer, () => answer.rates.map((row: any) => `${row.source_currency} -> ${row.dest_currency}  ${row.rate}`));
    });
  fx
    .command('list')
    .action(async (_options, command: Command) => {
      const globals = globalsOf(command);
      const answer = await adminClient(globals, env).request('GET', '/admin/ledger/fx-rates');
      print(globals, answer, () => (answer.rates.length === 0 ? ['(no rates)'] : answer.rates.map((row: any) => `${row.source_currency} -> ${row.dest_currency}  ${row.rate}`)));
    });
}

/** Rows as a table: a header and columns padded to their widest cell (amounts right-aligned). */
function alignedTable(columns: readonly string[], rows: readonly Record<string, unknown>[]): string[] {
  const cells = [columns.map(String), ...rows.map((row) => columns.map((column) => String(row[column] ?? '')))];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index].length)));
  const numeric = columns.map((_, index) => rows.length > 0 && rows.every((row) => /^-?\d+(\.\d+)?$/.test(String(row[columns[index]] ?? ''))) && index > 1);
  return cells.map((line) => line.map((cell, index) => (numeric[index] ? cell.padStart(widths[index]) : cell.padEnd(widths[index]))).join('  ').trimEnd());
}
