// A sale by pull (the customer's consent) or in processor mode, and its receipt.
import { randomUUID } from 'node:crypto';
import { Box, Text } from 'ink';
import React, { useState } from 'react';
import { customerUid, fromMinor, PosError, toMinor, type Loop, type Transfer } from './api.ts';
import type { AppOptions } from './options.ts';
import { message, Form, Choice, Confirm, Keys, loopLine, type Field } from './widgets.tsx';

interface Receipt {
  transfer: Transfer;
  lines: string[];
}

export function ReceiptView(props: { receipt: Receipt; onDone(): void }) {
  return (
    <Box flexDirection="column">
      <Text bold color="green">Receipt</Text>
      <Text>Transfer {props.receipt.transfer.id}</Text>
      {props.receipt.lines.map((line) => <Text key={line}>{line}</Text>)}
      <Keys hint="Enter: back to the menu" onEnter={props.onDone} />
    </Box>
  );
}

type SaleProps = { options: AppOptions; merchantId: string; processor: boolean; onDone(): void; setError(text: string): void; busy(value: boolean): void };
type Customer = { uid: string; id: string; title: string; token: string };
type SaleSplit = { total: bigint; brand: bigint };

/** The sale's total and its brand cash part from the form, or what is wrong with them. */
function splitSale(values: Record<string, string>, loop: Loop): SaleSplit | string {
  const available = toMinor(loop.amount) ?? 0n;
  const total = toMinor(values.total);
  if (total === null || total <= 0n) return 'the sale total must be an amount such as 12.50';
  const brand = values.brand === 'as much as possible' ? (available < total ? available : total) : toMinor(values.brand);
  if (brand === null || brand > total) return 'the brand cash part must be an amount no more than the total';
  if (brand > available) return `the customer holds only ${loop.amount} ${loop.currency}`;
  return { total, brand };
}

function receiptLines(sale: SaleSplit, loop: Loop, left: string): string[] {
  return [
    `Brand cash      ${fromMinor(sale.brand)} ${loop.currency} (${loop.title.slice(0, 30)})`,
    `Outside tender  ${fromMinor(sale.total - sale.brand)} ${loop.currency}`,
    `Total           ${fromMinor(sale.total)} ${loop.currency}`,
    `Remaining       ${left} ${loop.currency} of ${loop.title.slice(0, 30)}`,
  ];
}

function ConfirmSale(props: { title: string; loop: Loop; sale: SaleSplit; onNo(): void; onYes(): void }) {
  const { loop, sale } = props;
  return (
    <Box flexDirection="column">
      <Text bold>{props.title}: confirm</Text>
      <Text>Sale total      {fromMinor(sale.total)} {loop.currency}</Text>
      <Text>{loop.title.slice(0, 14).padEnd(15)} {fromMinor(sale.brand)} {loop.currency}</Text>
      <Text>Outside tender  {fromMinor(sale.total - sale.brand)} {loop.currency}</Text>
      <Confirm question="Take this payment?" onNo={props.onNo} onYes={props.onYes} />
    </Box>
  );
}

/** The sale's steps and what moves between them: finding the customer, then taking the payment. */
function useSale(props: SaleProps) {
  const { options, processor } = props;
  const [step, setStep] = useState<'customer' | 'loop' | 'amounts' | 'confirm' | 'receipt'>('customer');
  const [customer, setCustomer] = useState<Customer>({ uid: '', id: '', title: '', token: '' });
  const [loops, setLoops] = useState<Loop[]>([]);
  const [loop, setLoop] = useState<Loop | null>(null);
  const [sale, setSale] = useState<SaleSplit | null>(null);
  const [receipt, setReceipt] = useState<Receipt | null>(null);
  const run = (work: () => Promise<void>) => {
    props.busy(true);
    props.setError('');
    work().catch((error) => props.setError(message(error))).finally(() => props.busy(false));
  };
  const fetchLoops = async (who: Customer): Promise<Loop[]> => {
    if (processor) return (await options.client.sendable(who.token, who.id, props.merchantId)).loops.filter((row) => !row.missing_agreement);
    return (await options.client.redeemable(who.uid)).loops;
  };
  const findCustomer = async (values: Record<string, string>) => {
    const uid = customerUid(values.customer);
    if (!uid) throw new PosError('type a profile id, a UID such as email:pat@example.com, or the code text');
    const who = { uid, id: uid.startsWith('service:') ? uid.slice(8) : '', title: '', token: values.token ?? '' };
    if (processor && !who.id) throw new PosError('the processor needs the customer profile id');
    const found = await fetchLoops(who);
    if (found.length === 0) throw new PosError('this customer holds no brand cash this shop redeems');
    setCustomer(who);
    setLoops(found);
    if (found.length === 1) setLoop(found[0]);
    setStep(found.length === 1 ? 'amounts' : 'loop');
  };
  const takePayment = async (chosen: Loop, split: SaleSplit) => {
    const dedupId = randomUUID();
    const outside = split.total - split.brand;
    const amounts = split.brand > 0n ? `${chosen.loop_id}-${chosen.currency}-${fromMinor(split.brand)}` : undefined;
    const nonServiceAmount = outside > 0n ? fromMinor(outside) : undefined;
    const transfer = processor
      ? await options.client.procSend(customer.token, { senderId: customer.id, recipientId: props.merchantId, amounts, nonServiceAmount, currency: chosen.currency, dedupId })
      : await options.client.pull({ senderUid: customer.uid, amounts, nonServiceAmount, currency: chosen.currency, dedupId });
    const left = (await fetchLoops(customer).catch(() => [] as Loop[])).find((row) => row.loop_id === chosen.loop_id);
    setReceipt({ transfer, lines: receiptLines(split, chosen, left?.amount ?? '0.00') });
    setStep('receipt');
  };
  return { step, setStep, loops, loop, setLoop, sale, setSale, receipt, run, findCustomer, takePayment };
}

/** Sale by pull, or (processor) a send for a customer who granted the processor token. */
export function Sale(props: SaleProps) {
  const { options, processor } = props;
  const { step, setStep, loops, loop, setLoop, sale, setSale, receipt, run, findCustomer, takePayment } = useSale(props);
  const title = processor ? 'Processor: send for a customer' : 'Sale by pull';
  if (step === 'customer') {
    const fields: Field[] = processor
      ? [{ name: 'token', label: 'Processor token', initial: options.processorToken, secret: true }, { name: 'customer', label: 'Customer profile id' }]
      : [{ name: 'customer', label: 'Customer UID or code text' }];
    return (
      <Box flexDirection="column">
        <Text bold>{title}</Text>
        <Form active fields={fields} onCancel={props.onDone} onDone={(values) => run(() => findCustomer(values))} />
      </Box>
    );
  }
  if (step === 'loop') {
    return (
      <Box flexDirection="column">
        <Text bold>{title}: choose the brand cash</Text>
        <Choice items={loops.map(loopLine)} onCancel={props.onDone} onChoose={(index) => {
          setLoop(loops[index]);
          setStep('amounts');
        }} />
      </Box>
    );
  }
  if (step === 'amounts' && loop) {
    return (
      <Box flexDirection="column">
        <Text bold>{title}</Text>
        <Text>{loopLine(loop)} available</Text>
        <Form active fields={[{ name: 'total', label: 'Sale total' }, { name: 'brand', label: 'Paid in brand cash', initial: 'as much as possible' }]} onCancel={props.onDone} onDone={(values) => {
          const split = splitSale(values, loop);
          if (typeof split === 'string') return props.setError(split);
          props.setError('');
          setSale(split);
          setStep('confirm');
        }} />
      </Box>
    );
  }
  if (step === 'confirm' && loop && sale) return <ConfirmSale title={title} loop={loop} sale={sale} onNo={props.onDone} onYes={() => run(() => takePayment(loop, sale))} />;
  if (step === 'receipt' && receipt) return <ReceiptView receipt={receipt} onDone={props.onDone} />;
  return null;
}
