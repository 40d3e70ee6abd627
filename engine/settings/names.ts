// A wallet's name: first and last name for an individual, title and dba for a business.
import { failure } from '../authn/errors.ts';
import { personNameProblem } from '../authn/names.ts';
import { businessNameCharsMax, dbaCharsMax } from '../limits.ts';
import type { SettingsContext, SettingsOutcome } from './types.ts';

type NameInput = { firstName?: string; lastName?: string; title?: string; dba?: string };

/** Renames an individual; the failure when a field is missing, malformed or a business's. */
async function renameIndividual(ctx: SettingsContext, profileId: string, input: NameInput): Promise<SettingsOutcome | null> {
  const invalidFields: Record<string, string> = {};
  const firstProblem = input.firstName === undefined ? 'is required' : personNameProblem(input.firstName);
  const lastProblem = input.lastName === undefined ? 'is required' : personNameProblem(input.lastName);
  if (firstProblem) invalidFields.first_name = firstProblem;
  if (lastProblem) invalidFields.last_name = lastProblem;
  if (input.title !== undefined || input.dba !== undefined) invalidFields.title = 'is for businesses; an individual has first_name and last_name';
  if (Object.keys(invalidFields).length > 0) return failure('invalid', invalidFields);
  await ctx.profiles.rename(ctx.core.sql, profileId, { firstName: input.firstName!.trim(), lastName: input.lastName!.trim() });
  return null;
}

/** Renames a business; the failure when a field is missing, too long or an individual's. */
async function renameBusiness(ctx: SettingsContext, profileId: string, input: NameInput): Promise<SettingsOutcome | null> {
  const title = input.title?.trim() ?? '';
  if (!title) return failure('invalid', { title: 'is required' });
  if ([...title].length > businessNameCharsMax) return failure('invalid', { title: `must be at most ${businessNameCharsMax} characters` });
  if (input.dba !== undefined && [...input.dba].length > dbaCharsMax) return failure('invalid', { dba: `must be at most ${dbaCharsMax} characters` });
  if (input.firstName !== undefined || input.lastName !== undefined) return failure('invalid', { first_name: 'is for individuals; a business has title and dba' });
  await ctx.profiles.rename(ctx.core.sql, profileId, { title, dba: input.dba?.trim() || null });
  return null;
}

export async function changeName(ctx: SettingsContext, profileId: string, input: NameInput): Promise<SettingsOutcome> {
  const { sql } = ctx.core;
  const profile = await ctx.profiles.get(sql, profileId);
  if (!profile) return failure('invalid', { request: 'the profile is missing' });
  const problem = profile.isIndividual ? await renameIndividual(ctx, profileId, input) : await renameBusiness(ctx, profileId, input);
  if (problem) return problem;
  const updated = await ctx.profiles.get(sql, profileId);
  return { ok: true, profile: ctx.profiles.toPublic(updated!) };
}
