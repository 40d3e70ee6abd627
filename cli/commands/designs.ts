// `cashloop design list|show` and `cashloop agreement list`: cash designs and their network
// agreements through the admin API (read only).
import type { Command } from 'commander';
import { globalsOf, operatorApi, print } from '../client.ts';
import type { Environment } from '../settings.ts';

function designLine(design: any): string {
  return `${design.id}  ${design.type.padEnd(15)}${design.currency}  ${design.published ? 'published  ' : 'unpublished'}  issuer ${design.issuer_id}  ${design.title}`;
}

function roles(agreement: any): string {
  return ['redeemer', 'distributor', 'settler'].filter((role) => agreement[role]).join(',');
}

export function registerDesignCommands(program: Command, env: Environment): void {
  const design = program.command('design').description('Inspect cash designs (brand cash)');

  design
    .command('list')
    .description('Every live cash design, newest first')
    .action(async (_options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.GET('/admin/designs'));
      print(globals, answer, () => (answer.designs.length === 0 ? ['(no designs)'] : answer.designs.map(designLine)));
    });

  design
    .command('show')
    .description('One cash design in full: fields, image, icon, plans and agreements')
    .argument('<design_id>')
    .action(async (designId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const shown: any = await api.call(api.client.GET('/admin/designs/{designId}', { params: { path: { designId } } }));
      print(globals, shown, () => [
        `id               ${shown.id}`,
        `title            ${shown.title}`,
        `type             ${shown.type}`,
        `currency         ${shown.currency}`,
        `issuer_id        ${shown.issuer_id}`,
        `published        ${shown.published ? shown.published_at : 'no'}`,
        `multiple_images  ${shown.multiple_images}`,
        `image            ${shown.image?.url ?? '(none)'}`,
        ...Object.entries(shown.images ?? {}).map(([denomination, image]: [string, any]) => `image ${denomination.padEnd(10)} ${image.url}`),
        `icon             ${shown.icon_url ?? '(none)'}${shown.icon?.media_id ? ` (${shown.icon.style})` : ''}`,
        `plans            ${(shown.distribution_plans ?? []).map((plan: any) => `${plan.id} ${plan.title}`).join('; ') || '(none)'}`,
        `agreements       ${(shown.agreements ?? []).length}`,
      ]);
    });

  const agreement = program.command('agreement').description('Cash network agreements of designs');
  agreement
    .command('list')
    .description("A design's agreements (not removed), oldest first")
    .argument('<design_id>')
    .action(async (designId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.GET('/admin/designs/{designId}/agreements', { params: { path: { designId } } }));
      print(globals, answer, () =>
        answer.agreements.length === 0
          ? ['(no agreements)']
          : answer.agreements.map((row: any) => `${row.id}  ${row.state.padEnd(11)}  member ${row.member_id} (${row.member_title ?? '?'})  ${roles(row)}  "${row.terms_text}"`),
      );
    });
}
