// `cashloop settle DESIGN_ID`: the operator pays a design's pending settlements, a batch per call
// of the admin API, until none is left (the design's first active settler, else its issuer, pays).
import type { Command } from 'commander';
import { settleBatchesPerRunMax } from '../../engine/limits.ts';
import { adminClient, globalsOf, print } from '../client.ts';

export function registerPosCommands(program: Command, env?: Record<string, string | undefined>): void {
  program
    .command('settle')
    .description("Settle a design's pending redemptions in batches; idempotent (a second run settles nothing)")
    .argument('<design_id>')
    .option('--batch <n>', 'settlement rows per batch (1-500)', '100')
    .action(async (designId: string, options, command: Command) => {
      const globals = globalsOf(command);
      const client = adminClient(globals, env);
      const answers: any[] = [];
      for (let batch = 0; batch < settleBatchesPerRunMax; batch++) {
        const answer = await client.request('POST', `/admin/designs/${encodeURIComponent(designId)}/settle`, { limit: Number(options.batch) });
        answers.push(answer);
        if (answer.settled === 0 || answer.pending === 0) break;
      }
      const last = answers[answers.length - 1];
      const settled = answers.reduce((total, answer) => total + answer.settled, 0);
      const summary = { design_id: designId, settler_id: last.settler_id, batches: answers.length, settled, transfer_ids: answers.flatMap((answer) => answer.transfer_ids), pending: last.pending, pending_amount: last.pending_amount };
      print(globals, summary, () => [
        `settled ${settled} pending rows of design ${designId} in ${answers.length} batch(es), paid by ${last.settler_id}`,
        `still pending: ${last.pending} (${last.pending_amount} ${last.currency})`,
      ]);
    });
}
