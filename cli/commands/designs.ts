// `cashloop design create|list|show`, `cashloop plan create` and `cashloop agreement add|list`:
// cash designs, their distribution plans and network agreements through the admin API. Changes
// are made as the design's issuer would make them.
import type { Command } from 'commander';
import { CliError, commaList, globalsOf, memberApi, operatorApi, print, type OperatorApi } from '../client.ts';
import type { Environment } from '../settings.ts';
import { profileIdOf, serviceUidOf } from '../uids.ts';

function designLine(design: any): string {
  return `${design.id}  ${design.type.padEnd(15)}${design.currency}  ${design.published ? 'published  ' : 'unpublished'}  issuer ${design.issuer_id}  ${design.title}`;
}

function roles(agreement: any): string {
  return ['redeemer', 'distributor', 'settler'].filter((role) => agreement[role]).join(',');
}

function agreementLine(agreement: any): string {
  return `agreement ${agreement.id}  ${agreement.state}  member ${agreement.member_id}${agreement.member_title ? ` (${agreement.member_title})` : ''}  ${roles(agreement)}`;
}

export function registerDesignCommands(program: Command, env: Environment): void {
  registerDesignGroup(program, env);
  registerPlanGroup(program, env);
  const agreement = registerAgreementGroup(program, env);
  registerAgreementLife(agreement, env);
}

function registerDesignGroup(program: Command, env: Environment): void {
  const design = program.command('design').description('Create and inspect cash designs (brand cash)');

  design
    .command('create')
    .description('Create a cash design for an issuer profile (gl_design needs its design_gl feature)')
    .requiredOption('--issuer <profile>', 'the issuing profile: its id or any UID')
    .requiredOption('--title <title>', 'the design title')
    .requiredOption('--currency <code>', 'ISO 4217 code, e.g. USD')
    .option('--type <type>', 'gl_design, open_design or overlay_design', 'gl_design')
    .action(async (options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const body = { issuer_id: await profileIdOf(api, options.issuer, '--issuer'), title: options.title, currency: options.currency, design_type: options.type };
      const created: any = await api.call(api.client.POST('/admin/designs', { body }));
      print(globals, created, () => [designLine(created)]);
    });

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

}

function registerPlanGroup(program: Command, env: Environment): void {
  const plan = program.command('plan').description('Distribution plans of designs');
  plan
    .command('create')
    .description("Create a distribution plan on a design (default terms: the redeemer gets open loop settlement equal to the brand cash it receives)")
    .argument('<design_id>')
    .requiredOption('--title <title>', 'the plan title')
    .action(async (designId: string, options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const created = await api.call(api.client.POST('/admin/designs/{designId}/plans', { params: { path: { designId } }, body: { title: options.title } }));
      print(globals, created, () => [`plan ${created.plan_id}  ${options.title}`]);
    });

}

function registerAgreementGroup(program: Command, env: Environment): Command {
  const agreement = program.command('agreement').description('Cash network agreements of designs');
  agreement
    .command('add')
    .alias('create')
    .description('Add a network agreement to a design (inactive until its member activates it)')
    .argument('<design_id>')
    .requiredOption('--member <uid>', 'the member: its profile id or any UID')
    .requiredOption('--roles <roles>', 'comma-separated: redeemer, distributor, settler')
    .requiredOption('--terms <text>', 'the terms text')
    .option('--terms-link <url>', 'a link to the full terms')
    .action(async (designId: string, options, command: Command) => {
      const globals = globalsOf(command);
      const chosen = commaList(options.roles);
      const unknown = chosen.filter((role) => !['redeemer', 'distributor', 'settler'].includes(role));
      if (unknown.length > 0 || chosen.length === 0) throw new CliError(`--roles takes redeemer, distributor and settler, got ${options.roles}.`, 'invalid_option');
      const api = operatorApi(globals, env);
      const body = {
        uid: await serviceUidOf(api, options.member, '--member'),
        redeemer: chosen.includes('redeemer'),
        distributor: chosen.includes('distributor'),
        settler: chosen.includes('settler'),
        terms_text: options.terms,
        ...(options.termsLink ? { terms_link: options.termsLink } : {}),
      };
      const added: any = await api.call(api.client.POST('/admin/designs/{designId}/agreements', { params: { path: { designId } }, body }));
      print(globals, added, () => [
        agreementLine(added.agreement),
        ...(added.agreement.state === 'inactive' ? [`the member activates it: cashloop agreement activate ${designId} ${added.agreement.id} --token <the member's access token>`] : []),
      ]);
    });
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
  return agreement;
}

/** One agreement of a design (not removed), or an error naming both ids. */
async function agreementOf(api: OperatorApi, designId: string, agreementId: string): Promise<any> {
  const answer: any = await api.call(api.client.GET('/admin/designs/{designId}/agreements', { params: { path: { designId } } }));
  const found = answer.agreements.find((row: any) => row.id === agreementId);
  if (!found) throw new CliError(`Design ${designId} has no agreement ${agreementId} (or it was removed); \`cashloop agreement list ${designId}\` lists them.`, 'not_found', { status: 404 });
  return found;
}

// Activation has legal weight: only the member gives it, with its own access token (the call
// POST /design/<id>/agreement/<agreement_id>/activate). The operator may deactivate or remove as
// the design's issuer, through the admin API.
function registerAgreementLife(agreement: Command, env: Environment): void {
  agreement
    .command('show')
    .description('One agreement of a design: state, member, roles and terms')
    .argument('<design_id>')
    .argument('<agreement_id>')
    .action(async (designId: string, agreementId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const found = await agreementOf(operatorApi(globals, env), designId, agreementId);
      print(globals, found, () => [agreementLine(found), `terms  ${found.terms_text}${found.terms_link ? `  (${found.terms_link})` : ''}`]);
    });

  agreement
    .command('activate')
    .description("The member activates its agreement (it has formally agreed): the member's own call, made with its access token")
    .argument('<design_id>')
    .argument('<agreement_id>')
    .option('--token <access_token>', "the member's access token (default: CASHLOOP_MEMBER_TOKEN)")
    .action(async (designId: string, agreementId: string, options, command: Command) => {
      const globals = globalsOf(command);
      const token = options.token ?? env.CASHLOOP_MEMBER_TOKEN;
      if (!token) throw new CliError("Only the member activates an agreement: give its access token with --token (or CASHLOOP_MEMBER_TOKEN); the operator key cannot.", 'missing_option');
      const api = memberApi(globals, env, token);
      const answer: any = await api.call(api.client.POST('/design/{designId}/agreement/{agreementId}/activate', { params: { path: { designId, agreementId } }, body: {} as never }));
      print(globals, answer, () => [agreementLine(answer.agreement)]);
    });

  agreement
    .command('deactivate')
    .description("Deactivate an agreement, as the design's issuer")
    .argument('<design_id>')
    .argument('<agreement_id>')
    .action(async (designId: string, agreementId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.POST('/admin/designs/{designId}/agreements/{agreementId}/deactivate', { params: { path: { designId, agreementId } }, body: {} }));
      print(globals, answer, () => [agreementLine(answer.agreement)]);
    });

  agreement
    .command('remove')
    .description("Remove an agreement, as the design's issuer")
    .argument('<design_id>')
    .argument('<agreement_id>')
    .action(async (designId: string, agreementId: string, _options, command: Command) => {
      const globals = globalsOf(command);
      const api = operatorApi(globals, env);
      const answer: any = await api.call(api.client.DELETE('/admin/designs/{designId}/agreements/{agreementId}', { params: { path: { designId, agreementId } }, body: {} }));
      print(globals, answer, () => [`removed agreement ${agreementId}; ${answer.agreements.length} left on design ${designId}`]);
    });
}
