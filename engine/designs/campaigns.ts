// Campaign events for a design owner: `return` (a holder sent the brand cash back to its issuer)
// and `expire` (the cash expired and left the holder), newest first, paged by an opaque cursor.
// Read straight from the movements the ledger wrote, so they can never disagree with it.
import type { Core } from '../core.ts';
import { campaignDesignsMax } from '../limits.ts';
import { formatMinor } from '../money.ts';
import * as store from './store.ts';

export type CampaignEventType = 'return' | 'expire';

export interface CampaignEvent {
  id: string;
  event_type: CampaignEventType;
  design_id: string;
  design_title: string;
  transfer_id: string;
  holder_id: string | null;
  amount: string;
  currency: string;
  created: string;
}

export interface CampaignsService {
  list(profileId: string): Promise<{ id: string; design_id: string; title: string; currency: string; published: boolean }[]>;
  events(input: { profileId: string; designId?: string; types: CampaignEventType[]; cursor?: string; limit: number }): Promise<{ ok: true; events: CampaignEvent[]; more: boolean; next_cursor: string | null } | { ok: false; error: 'design_not_found' | 'invalid' }>;
}

function encodeCursor(row: store.CampaignEventRow): string {
  return Buffer.from(JSON.stringify([row.at.toISOString(), row.transfer_id, row.number, row.line])).toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; transferId: string; number: number; line: number } | null {
  try {
    const [at, transferId, number, line] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string, number, number];
    const when = new Date(at);
    if (Number.isNaN(when.getTime()) || typeof transferId !== 'string' || !Number.isInteger(number) || !Number.isInteger(line)) return null;
    return { at: when, transferId, number, line };
  } catch {
    return null;
  }
}

export function createCampaignsService(core: Core): CampaignsService {
  const { sql } = core;
  return {
    async list(profileId) {
      const designs = await store.selectEditableDesigns(sql, profileId, campaignDesignsMax);
      return designs.map((design) => ({ id: design.id, design_id: design.id, title: design.title, currency: design.currency, published: design.published_at !== null }));
    },

    async events(input) {
      const designs = await store.selectEditableDesigns(sql, input.profileId, campaignDesignsMax);
      const chosen = input.designId === undefined ? designs : designs.filter((design) => design.id === input.designId);
      if (input.designId !== undefined && chosen.length === 0) return { ok: false, error: 'design_not_found' };
      const before = input.cursor === undefined ? null : decodeCursor(input.cursor);
      if (input.cursor !== undefined && !before) return { ok: false, error: 'invalid' };
      const titles = new Map(chosen.map((design) => [design.id, design.title]));
      const rows = chosen.length === 0 ? [] : await store.selectCampaignEvents(sql, { designIds: chosen.map((design) => design.id), types: input.types, before, limit: input.limit + 1 });
      const page = rows.slice(0, input.limit);
      return {
        ok: true,
        events: page.map((row) => ({
          id: `${row.transfer_id}.${row.number}.${row.line}`, event_type: row.action === 'expire' ? 'expire' : 'return', design_id: row.loop_id, design_title: titles.get(row.loop_id) ?? '',
          transfer_id: row.transfer_id, holder_id: row.from_id, amount: formatMinor(row.amount, row.currency), currency: row.currency, created: row.at.toISOString(),
        })),
        more: rows.length > input.limit,
        next_cursor: rows.length > input.limit ? encodeCursor(page[page.length - 1]) : null,
      };
    },
  };
}
