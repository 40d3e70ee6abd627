// The received-and-receivable report (POST /wallet/report/receivable): the caller's report rows
// under the filters, as JSON or CSV, both streamed (Postgres's COPY on real Postgres, a cursor on
// PGlite), so an answer's memory stays flat whatever the row count.
import type { Core } from '../core.ts';
import { dayMs, reportCursorRows, reportJsonRowsMax, reportWriteBytesMin } from '../limits.ts';
import { currencyScaleExceptions, formatMinor } from '../money.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { invalid, posFailure, type PosFailure } from './errors.ts';
import * as store from './store.ts';

export const settlementTypes = ['init_dist', 'redeem', 'immediate', 'paycard', 'non_service'] as const;

export interface ReportRequest {
  profileId: string;
  personalId: string | null;
  startDate?: string;
  endDate?: string;
  posDevice?: string;
  settlementTypes?: readonly string[];
}

export const csvColumns = [
  'date', 'timestamp', 'transfer_id', 'pos_device_holder_id', 'pos_device_id', 'dist_tid', 'settlement_type', 'received_currency', 'settle_currency', 'loop_id',
  'is_fundable', 'tender_type', 'received_amount', 'settle_funded', 'settle_reclaimed', 'settle_pending', 'settle_settled',
] as const;

export type ReportRow = Record<(typeof csvColumns)[number], string | boolean | null>;

export function rowJson(row: store.ReceivableRow): ReportRow {
  const money = (minor: bigint, currency: string) => formatMinor(minor, currency);
  return {
    date: row.at.toISOString().slice(0, 10),
    timestamp: row.at.toISOString(),
    transfer_id: row.transfer_id,
    pos_device_holder_id: row.pos_device_holder_id,
    pos_device_id: row.pos_device_id,
    dist_tid: row.dist_tid,
    settlement_type: row.settlement_type,
    received_currency: row.received_currency,
    settle_currency: row.settle_currency,
    loop_id: row.loop_id,
    is_fundable: row.is_fundable,
    tender_type: row.tender_type,
    received_amount: money(row.received_amount, row.received_currency),
    settle_funded: money(row.is_fundable ? row.settle_funded : 0n, row.settle_currency),
    settle_reclaimed: money(row.settle_reclaimed, row.settle_currency),
    settle_pending: money(row.settle_pending, row.settle_currency),
    settle_settled: money(row.settle_settled, row.settle_currency),
  };
}

function csvCell(value: string | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly (string | boolean | null)[]): string {
  return `${values.map(csvCell).join(',')}\n`;
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/;

function parseDate(text: string): Date | null {
  if (!datePattern.test(text)) return null;
  const date = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text ? null : date;
}

export interface Report {
  /** The filters of a request, checked; an invalid field is named. */
  filters(request: ReportRequest): store.ReportFilters | PosFailure;
  /** JSON, streamed: the envelope, then the rows a batch at a time (made by Postgres's COPY on real Postgres). */
  json(request: ReportRequest, filters: store.ReportFilters): Promise<AsyncIterable<string | Buffer> | PosFailure>;
  /** CSV: the header, then one line per row; from Postgres's COPY, or read a batch at a time on PGlite. */
  csv(filters: store.ReportFilters): AsyncIterable<string | Buffer>;
}

export function createReport(core: Core, dependencies: { profiles: ProfilesService }): Report {
  const { sql } = core;
  return {
    filters(request) {
      const startAt = request.startDate === undefined ? null : parseDate(request.startDate);
      if (request.startDate !== undefined && !startAt) return invalid('start_date', 'must be a date YYYY-MM-DD');
      const endDay = request.endDate === undefined ? null : parseDate(request.endDate);
      if (request.endDate !== undefined && !endDay) return invalid('end_date', 'must be a date YYYY-MM-DD');
      if (startAt && endDay && endDay < startAt) return invalid('end_date', 'must not be before start_date');
      const endBefore = endDay ? new Date(endDay.getTime() + dayMs) : null;
      const device = request.posDevice ?? 'any_or_none';
      let posDevice: store.ReportFilters['posDevice'];
      if (device === 'any_or_none' || device === 'any' || device === 'none') posDevice = device;
      else {
        const match = /^(\d{10})\.([0-9A-Za-z_-]{1,36})$/.exec(device);
        if (!match) return invalid('pos_device', 'must be any_or_none, any, none or <profile_id>.<device_id>');
        posDevice = { holderId: match[1], deviceId: match[2] };
      }
      const types = request.settlementTypes;
      if (types && types.some((type) => !(settlementTypes as readonly string[]).includes(type))) {
        return invalid('settlement_types', `each must be one of ${settlementTypes.join(', ')}`);
      }
      return { profileId: request.profileId, startAt, endBefore, posDevice, settlementTypes: types && types.length > 0 ? types : null };
    },

    async json(request, filters) {
      // The bound's count and the envelope's reads go out together (one round trip, not two).
      const [tooLarge, fields] = await Promise.all([store.reportHasMoreThan(sql, filters, reportJsonRowsMax), reportEnvelope(core, dependencies.profiles, request)]);
      if (tooLarge) {
        return posFailure('report_too_large', { invalid: { csv: `the report has more than ${reportJsonRowsMax} rows; ask for csv: true` } });
      }
      const envelope = JSON.stringify({ ...fields, report: [] });
      // The rows go between the envelope's last "[" and "]}": the answer streams, its memory flat.
      return jsonChunks(core, filters, envelope.slice(0, -2), envelope.slice(-2));
    },

    async *csv(filters) {
      if (core.database.kind === 'postgres') {
        yield* gathered(await store.copyReport(sql, filters, currencyScaleExceptions), reportWriteBytesMin);
        return;
      }
      yield csvLine(csvColumns);
      for await (const batch of store.reportQuery(sql, filters).cursor(reportCursorRows)) {
        let chunk = '';
        for (const row of batch) {
          const json = rowJson(row);
          chunk += csvLine(csvColumns.map((column) => json[column]));
        }
        yield chunk;
      }
    },
  };
}

/** The JSON answer's fields other than the rows. */
async function reportEnvelope(core: Core, profiles: ProfilesService, request: ReportRequest): Promise<Record<string, unknown>> {
  const [profile, personal] = await Promise.all([
    profiles.get(core.sql, request.profileId),
    request.personalId && request.personalId !== request.profileId ? profiles.get(core.sql, request.personalId) : Promise.resolve(null),
  ]);
  return {
    report_type: 'received_and_receivable',
    generated_timestamp: core.clock.now().toISOString(),
    generated_by: {
      id: request.profileId, title: profile?.title ?? '',
      personal_id: personal ? personal.id : (request.personalId ?? request.profileId), personal_title: personal ? personal.title : (profile?.title ?? ''),
    },
    filters: {
      start_date: request.startDate ?? null, end_date: request.endDate ?? null, pos_device: request.posDevice ?? 'any_or_none',
      settlement_types: request.settlementTypes && request.settlementTypes.length > 0 ? [...request.settlementTypes] : [...settlementTypes],
    },
  };
}

async function* jsonChunks(core: Core, filters: store.ReportFilters, head: string, tail: string): AsyncIterable<string | Buffer> {
  yield head;
  if (core.database.kind === 'postgres') {
    yield* commaJoinedLines(await store.copyReportJson(core.sql, filters, currencyScaleExceptions));
  } else {
    let first = true;
    for await (const batch of store.reportQuery(core.sql, filters).cursor(reportCursorRows)) {
      const text = batch.map((row) => JSON.stringify(rowJson(row))).join(',');
      yield first ? text : `,${text}`;
      first = false;
    }
  }
  yield tail;
}

const newline = 0x0a;
const comma = 0x2c;

/** The chunks gathered into pieces of at least `bytesMin` (the last may be shorter), each one new Buffer. */
export async function* gathered(chunks: AsyncIterable<Buffer>, bytesMin: number): AsyncIterable<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes < bytesMin) continue;
    yield Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

/** Lines (each ending in a newline) joined by commas, in pieces of about `bytesMin`: every newline becomes a comma but the last, which is dropped. */
export async function* commaJoinedLines(lines: AsyncIterable<Buffer>, bytesMin = reportWriteBytesMin): AsyncIterable<Buffer> {
  let held: Buffer | null = null;
  for await (const joined of gathered(lines, bytesMin)) {
    // indexOf finds each newline natively: one step per row, not per byte. The piece is a copy: ours to change.
    for (let index = joined.indexOf(newline); index !== -1; index = joined.indexOf(newline, index + 1)) joined[index] = comma;
    if (held) yield held;
    held = joined;
  }
  if (held) yield held[held.length - 1] === comma ? held.subarray(0, held.length - 1) : held;
}
