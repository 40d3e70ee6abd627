// The end-of-day report: received and receivable per type, exported as CSV.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Box, Text } from 'ink';
import React, { useEffect, useState } from 'react';
import { fromMinor, toMinor, type ReportRow } from './api.ts';
import type { AppOptions } from './options.ts';
import { message, Keys } from './widgets.tsx';

export function reportTotals(rows: readonly ReportRow[]) {
  const totals = new Map<string, { count: number; received: bigint; funded: bigint; pending: bigint; settled: bigint }>();
  for (const row of rows) {
    const entry = totals.get(row.settlement_type) ?? { count: 0, received: 0n, funded: 0n, pending: 0n, settled: 0n };
    entry.count += 1;
    entry.received += toMinor(row.received_amount) ?? 0n;
    entry.funded += toMinor(row.settle_funded) ?? 0n;
    entry.pending += toMinor(row.settle_pending) ?? 0n;
    entry.settled += toMinor(row.settle_settled) ?? 0n;
    totals.set(row.settlement_type, entry);
  }
  return totals;
}

type Totals = ReturnType<typeof reportTotals> extends Map<string, infer Total> ? Total : never;

/** The grand total over every settlement type. */
export function grandTotal(totals: ReturnType<typeof reportTotals>): Totals {
  const sum: Totals = { count: 0, received: 0n, funded: 0n, pending: 0n, settled: 0n };
  for (const total of totals.values()) {
    sum.count += total.count;
    sum.received += total.received;
    sum.funded += total.funded;
    sum.pending += total.pending;
    sum.settled += total.settled;
  }
  return sum;
}

function totalsLine(label: string, total: Totals): string {
  const pad = (text: string, width: number) => text.padStart(width);
  return `${label.padEnd(12)}${pad(String(total.count), 6)}${pad(fromMinor(total.received), 12)}${pad(fromMinor(total.funded), 12)}${pad(fromMinor(total.pending), 12)}${pad(fromMinor(total.settled), 12)}`;
}

export function EndOfDay(props: { options: AppOptions; onDone(): void; setError(text: string): void; busy(value: boolean): void; refreshKey?: number }) {
  const { options } = props;
  const [rows, setRows] = useState<ReportRow[] | null>(null);
  const [saved, setSaved] = useState('');
  const day = options.today();
  useEffect(() => {
    props.busy(true);
    options.client.report({ startDate: day, endDate: day }).then((answer) => setRows(answer.report)).catch((error) => props.setError(message(error))).finally(() => props.busy(false));
  }, [props.refreshKey]); // A payment told by the receive feed reloads the report (live end of day).
  const exportCsv = () => {
    props.busy(true);
    options.client.reportCsv({ startDate: day, endDate: day })
      .then((csv) => {
        mkdirSync(options.exportDir, { recursive: true });
        const file = path.resolve(options.exportDir, `pos-report-${day}.csv`);
        writeFileSync(file, csv);
        setSaved(file);
      })
      .catch((error) => props.setError(message(error)))
      .finally(() => props.busy(false));
  };
  const totals = rows ? reportTotals(rows) : new Map<string, Totals>();
  const pad = (text: string, width: number) => text.padStart(width);
  const devices = [...new Set((rows ?? []).map((row) => row.pos_device_id).filter((device): device is string => Boolean(device)))];
  return (
    <Box flexDirection="column">
      <Text bold>End of day {day}</Text>
      {rows === null ? <Text dimColor>Loading the report...</Text> : (
        <Box flexDirection="column">
          <Text>{'type'.padEnd(12)}{pad('rows', 6)}{pad('received', 12)}{pad('funded', 12)}{pad('pending', 12)}{pad('settled', 12)}</Text>
          {[...totals].map(([type, total]) => <Text key={type}>{totalsLine(type, total)}</Text>)}
          <Text bold>{totalsLine('total', grandTotal(totals))}</Text>
          {rows.length === 0 ? <Text dimColor>No payments today.</Text> : null}
          {devices.length > 0 ? <Text dimColor>POS devices: {devices.join(', ').slice(0, 60)}</Text> : null}
          {saved ? <Text color="green">CSV saved to {saved}</Text> : null}
          <Keys hint="e: export CSV  Enter: menu" keys={{ e: exportCsv }} onEnter={props.onDone} />
        </Box>
      )}
    </Box>
  );
}
