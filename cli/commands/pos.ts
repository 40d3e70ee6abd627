// `cashloop settle DESIGN_ID`: the operator pays a design's pending settlements, a batch per call
// of the admin API, until none is left (the design's first active settler, else its issuer, pays).
import type { Command } from 'commander';
import { settleBatchesPerRunMax } from '../../engine/limits.ts';
import { globalsOf, operatorApi, print } from '../client.ts';
import type { Environment } from '../settings.ts';

export function registerPosCommands(program: Command, env: Environment): void {
  program
    .command('settle')
    .description("Settle a design's pending redemptions in batches; idempotent (a second run settles nothing)")
    .argument('<design_id>')
    .option('--batch <n>', 'settlement rows per batch (1-500)', '100')
    .action(async (designId: string, options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answers: { settled: number; pending: number; pending_amount: string; currency: string; settler_id: string; transfer_ids: string[] }[] = [];
      for (let batch = 0; batch < settleBatchesPerRunMax; batch++) {
        const answer = await api.call(api.client.POST('/admin/designs/{designId}/settle', { params: { path: { designId } }, body: { limit: Number(options.batch) } as never }));
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
