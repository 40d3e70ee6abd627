// Campaign events of a design owner's brand cash: GET /campaign/list and GET /campaign/events.
import { z } from 'zod';
import { campaignEventsCursorCharsMax, campaignEventsLimitDefault, campaignEventsLimitMax } from '../../engine/limits.ts';
import { edgeErrors, httpError } from '../http/errors.ts';
import { boundedString, intField } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';

const eventTypes = ['return', 'expire'] as const;
const eventsInput = z
  .object({
    design_id: z.string().regex(/^\d{10}$/, 'must be a design id').optional(),
    event_type: z.enum(eventTypes).optional(),
    cursor: boundedString(campaignEventsCursorCharsMax, 1).optional(),
    limit: intField(1, campaignEventsLimitMax).optional(),
  })
  .strict();

const campaignEvent = z.object({
  id: z.string(), event_type: z.enum(eventTypes), design_id: z.string(), design_title: z.string(), transfer_id: z.string(), holder_id: z.string().nullable(),
  amount: z.string(), currency: z.string(), created: z.string(),
});

export const campaignRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/campaign/list',
    summary: 'The designs whose campaign events the caller may read (those it may edit).',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'view_design' },
    input: z.object({}).strict(),
    response: z.object({ campaigns: z.array(z.object({ id: z.string(), design_id: z.string(), title: z.string(), currency: z.string(), published: z.boolean() })) }),
    async handler({ engine, token }) {
      return { campaigns: await engine.services.campaigns.list(token.profileId) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/campaign/events',
    summary: 'Return and expire events of the caller\'s designs, newest first; pass next_cursor as cursor for the next page.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'view_design' },
    input: eventsInput,
    response: z.object({ events: z.array(campaignEvent), more: z.boolean(), next_cursor: z.string().nullable() }),
    async handler({ engine, token, input }) {
      const result = await engine.services.campaigns.events({
        profileId: token.profileId, designId: input.design_id, types: input.event_type ? [input.event_type] : [...eventTypes], cursor: input.cursor,
        limit: input.limit ?? campaignEventsLimitDefault,
      });
      if (!result.ok && result.error === 'design_not_found') throw httpError(edgeErrors, 'invalid', { invalid: { design_id: 'is not a design whose campaign this profile may read' } });
      if (!result.ok) throw httpError(edgeErrors, 'invalid', { invalid: { cursor: 'is not a cursor this call gave' } });
      return { events: result.events, more: result.more, next_cursor: result.next_cursor };
    },
  }),
];
