// `cashloop webhook add|list|show|remove|rotate|deliveries`: a profile's webhooks through the admin
// API. Profiles manage their own with /p/<id>/webhooks; operators use these.
import type { Command } from 'commander';
import { commaList, globalsOf, operatorApi, print } from '../client.ts';
import type { Environment } from '../settings.ts';
import { serviceUidOf } from '../uids.ts';

function webhookLines(hook: any): string[] {
  const filters = [hook.workflow_types ? `types ${hook.workflow_types.join(',')}` : 'every type', hook.states ? `states ${hook.states.join(',')}` : 'every state'];
  return [
    `webhook ${hook.id}  profile ${hook.profile_id}  ${hook.url}`,
    `  ${filters.join('  ')}${hook.previous_secret_until ? `  previous secret valid until ${hook.previous_secret_until}` : ''}`,
  ];
}

export function registerWebhookCommands(program: Command, env: Environment): void {
  const webhook = program.command('webhook').description("Profiles' webhooks: signed transfer changes POSTed to a URL");
  registerWebhookSetup(webhook, env);
  registerWebhookUpkeep(webhook, env);
}

function registerWebhookSetup(webhook: Command, env: Environment): void {
  webhook
    .command('add')
    .description('Register a handler URL for a profile; prints its signing secret once')
    .requiredOption('--uid <uid>', 'the profile: its id or any UID')
    .argument('<url>', 'where deliveries are POSTed')
    .option('--types <types>', 'only these workflow types, comma separated (e.g. profile_to_profile,bill)', commaList)
    .option('--states <states>', 'only changes into these states: pending, completed, canceled (comma separated)', commaList)
    .action(async (url: string, options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const body: Record<string, unknown> = { uid: await serviceUidOf(api, options.uid, '--uid'), url };
      if (options.types) body.workflow_types = options.types;
      if (options.states) body.states = options.states;
      const answer: any = await api.call(api.client.POST('/admin/webhooks', { body: body as never }));
      print(globals, answer, () => [...webhookLines(answer.webhook), `  secret ${answer.secret}  (shown once: keep it where your handler can read it)`]);
    });

  webhook
    .command('list')
    .description("A profile's webhooks")
    .requiredOption('--uid <uid>', 'the profile: its id or any UID')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.GET('/admin/webhooks', { params: { query: { uid: await serviceUidOf(api, options.uid, '--uid') } } }));
      print(globals, answer, () => (answer.webhooks.length === 0 ? ['(no webhooks)'] : answer.webhooks.flatMap(webhookLines)));
    });

  webhook
    .command('show')
    .argument('<webhook_id>')
    .description('One webhook')
    .action(async (webhookId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.GET('/admin/webhook/{webhookId}', { params: { path: { webhookId } } }));
      print(globals, answer, () => webhookLines(answer.webhook));
    });
}

function registerWebhookUpkeep(webhook: Command, env: Environment): void {
  webhook
    .command('remove')
    .argument('<webhook_id>')
    .description('Remove a webhook (deliveries not yet made are dropped)')
    .action(async (webhookId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.DELETE('/admin/webhook/{webhookId}', { params: { path: { webhookId } }, body: {} }));
      print(globals, answer, () => [`webhook ${webhookId} removed`]);
    });

  webhook
    .command('rotate')
    .argument('<webhook_id>')
    .description('A new signing secret (printed once); the previous one also signs for 24 hours')
    .action(async (webhookId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.POST('/admin/webhook/{webhookId}/rotate', { params: { path: { webhookId } }, body: {} }));
      print(globals, answer, () => [...webhookLines(answer.webhook), `  secret ${answer.secret}  (shown once)`]);
    });

  webhook
    .command('deliveries')
    .argument('<webhook_id>')
    .description('Recent deliveries: attempts, delivered or failed, the last error')
    .option('--limit <n>', 'how many (default 20, at most 100)')
    .action(async (webhookId: string, options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const query = options.limit ? { limit: options.limit } : {};
      const answer: any = await api.call(api.client.GET('/admin/webhook/{webhookId}/deliveries', { params: { path: { webhookId }, query: query as never } }));
      print(globals, answer, () =>
        answer.deliveries.length === 0
          ? ['(no deliveries)']
          : answer.deliveries.map((row: any) => `${row.delivery_id}  transfer ${row.transfer_id} #${row.activity_count}  ${row.delivered_at ? 'delivered' : row.failed_at ? 'failed' : `retry at ${row.next_attempt_at}`}  attempts ${row.attempts}${row.last_error ? `  (${row.last_error})` : ''}`),
      );
    });
}
