// `cashloop fundproxy deposit ACCOUNT AMOUNT`: the simulated ACH rail. Money arriving for a funding
// proxy's account number is issued by its issuer and lands in its recipient's wallet.
import type { Command } from 'commander';
import { globalsOf, operatorApi, print } from '../client.ts';
import type { Environment } from '../settings.ts';

export function registerFundProxyCommands(program: Command, env: Environment): void {
  const fundproxy = program.command('fundproxy').description('ACH funding proxies (apps create them with POST /fundproxy/get-ach)');

  fundproxy
    .command('deposit')
    .description('ACH money arrives for a proxy: issued, passed through the distributor if any, credited to the recipient')
    .argument('<account_number>', "the proxy's 12-digit account number")
    .argument('<amount>', 'USD, e.g. 25.00')
    .option('--trace <trace_number>', 'the ACH trace number: a repeat answers the first transfer and issues nothing')
    .action(async (accountNumber: string, amount: string, options, command: Command) => {
      const globals = globalsOf(command);
      const body: Record<string, unknown> = { account_number: accountNumber, amount, currency: 'USD' };
      if (options.trace) body.trace_number = options.trace;
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.POST('/admin/fundproxy/deposit', { body: body as never }));
      print(globals, answer, () => [`transfer ${answer.transfer_id}${answer.duplicate ? '  (repeated trace number: nothing new was issued)' : ''}`]);
    });
}
