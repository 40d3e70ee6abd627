// A payment code sale: the customer shows a code, the terminal takes the amount.
import { Box, Text } from 'ink';
import React, { useState } from 'react';
import { fromMinor, PosError, toMinor } from './api.ts';
import type { AppOptions } from './options.ts';
import { message, qrText, Form, Keys, useScreenWidth } from './widgets.tsx';

/** What is wrong with the typed amounts before they are sent, in the terminal's words; null when nothing. */
export function amountsProblem(values: { amount: string; totalDue?: string; totalTax?: string }): string | null {
  const amount = toMinor(values.amount);
  if (amount === null || amount <= 0n) return 'the amount must be an amount such as 12.50';
  if (values.totalDue !== undefined) {
    const totalDue = toMinor(values.totalDue);
    if (totalDue === null) return 'the total due must be an amount such as 12.50, or left empty';
    if (totalDue < amount) return `the total due (${values.totalDue}) must be at least the amount (${values.amount}), or left empty`;
  }
  if (values.totalTax !== undefined && toMinor(values.totalTax) === null) return 'the total tax must be an amount such as 0.50, or left empty';
  return null;
}

interface MovedLoop { loop_id: string; currency: string; amount: string }
interface Movement { to_id: string | null; loops: MovedLoop[] }

/**
 * Which cash a payment took, one line per loop that reached the merchant: open loop cash (loop 0)
 * or brand cash (a design's loop), from the movements of the transfer the receive answered.
 */
export function takenCashLines(transfer: { movements?: Movement[] } | undefined, merchantId: string): string[] {
  const totals = new Map<string, { currency: string; minor: bigint }>();
  for (const movement of transfer?.movements ?? []) {
    if (movement.to_id !== merchantId) continue;
    for (const loop of movement.loops) {
      const key = `${loop.loop_id} ${loop.currency}`;
      const total = totals.get(key) ?? { currency: loop.currency, minor: 0n };
      total.minor += toMinor(loop.amount) ?? 0n;
      totals.set(key, total);
    }
  }
  return [...totals].map(([key, total]) => {
    const loopId = key.split(' ')[0];
    const which = loopId === '0' ? 'open loop cash' : `brand cash (design ${loopId})`;
    return `${which.padEnd(31)} ${fromMinor(total.minor)} ${total.currency}`;
  });
}

/** The payment code form's narrowest: below it the QR code gives way. */
const paycodeFormColumnsMin = 40;

export function Paycode(props: { options: AppOptions; merchantId: string; onDone(): void; setError(text: string): void; busy(value: boolean): void }) {
  const { options } = props;
  const [last, setLast] = useState<{ paycode: string; amount: string; totalDue?: string; totalTax?: string; transferId: string; taken: string[] } | null>(null);
  const [correcting, setCorrecting] = useState(false);
  const run = (work: () => Promise<void>) => {
    props.busy(true);
    props.setError('');
    work().catch((error) => props.setError(message(error))).finally(() => props.busy(false));
  };
  const receive = (values: { paycode: string; amount: string; totalDue?: string; totalTax?: string }) => run(async () => {
    const problem = amountsProblem(values);
    if (problem) throw new PosError(problem);
    const answer = await options.client.receive({ ...values, currency: options.currency }) as { transfer?: { id?: string; movements?: Movement[] }; transfer_id?: string };
    setLast({ ...values, transferId: answer.transfer?.id ?? answer.transfer_id ?? '', taken: takenCashLines(answer.transfer, props.merchantId) });
    setCorrecting(false);
  });
  const qr = qrText(`cashloop:pay?recipient_uid=service:${props.merchantId}`);
  const qrWidth = Math.max(...qr.split('\n').map((line) => line.length)) + 2;
  // The QR code is never wrapped (it would not scan): beside the form when the terminal has room, else left out.
  const width = useScreenWidth();
  const formWidth = width - qrWidth >= paycodeFormColumnsMin ? width - qrWidth : width;
  return (
    <Box flexDirection="row">
      {formWidth < width ? <Box flexDirection="column" flexShrink={0} width={qrWidth}><Text wrap="truncate">{qr}</Text></Box> : null}
      <Box flexDirection="column" width={formWidth}>
        <Text bold>Payment code</Text>
        <Text dimColor>The customer scans, sends, and reads out the code.</Text>
        {last && !correcting ? (
          <Box flexDirection="column">
            <Text color="green">Received {last.amount} {options.currency}</Text>
            {last.taken.map((line) => <Text key={line}>{line}</Text>)}
            <Text>Transfer {last.transferId}</Text>
            <Keys hint="c: correct the amount  Enter: menu" keys={{ c: () => setCorrecting(true) }} onEnter={props.onDone} />
          </Box>
        ) : correcting && last ? (
          // No kept total due: the corrected amount may be above the old one (total_due must be at least amount).
          <Form active fields={[{ name: 'amount', label: 'Corrected amount', initial: last.amount }, { name: 'totalDue', label: 'Total due', optional: true }]}
            onCancel={() => setCorrecting(false)}
            onDone={(values) => receive({ paycode: last.paycode, amount: values.amount, totalDue: values.totalDue || undefined, totalTax: last.totalTax })} />
        ) : (
          <Form active fields={[
            { name: 'paycode', label: 'Payment code' }, { name: 'amount', label: 'Amount' },
            { name: 'totalDue', label: 'Total due', optional: true }, { name: 'totalTax', label: 'Total tax', optional: true },
          ]} onCancel={props.onDone} onDone={(values) => receive({
            paycode: values.paycode, amount: values.amount, totalDue: values.totalDue || undefined, totalTax: values.totalTax || undefined,
          })} />
        )}
      </Box>
    </Box>
  );
}

/** Totals per settlement type, in minor units. */
