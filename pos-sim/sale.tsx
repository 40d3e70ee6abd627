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

/** Sale by pull, or (processor) a send for a customer who granted the processor token. */
export function Sale(props: { options: AppOptions; merchantId: string; processor: boolean; onDone(): void; setError(text: string): void; busy(value: boolean): void }) {
  const { options, processor } = props;
  const [step, setStep] = useState<'customer' | 'loop' | 'amounts' | 'confirm' | 'receipt'>('customer');
  const [customer, setCustomer] = useState<{ uid: string; id: string; title: string; token: string }>({ uid: '', id: '', title: '', token: '' });
  const [loops, setLoops] = useState<Loop[]>([]);
  const [loop, setLoop] = useState<Loop | null>(null);
  const [sale, setSale] = useState<{ total: bigint; brand: bigint } | null>(null);
  const [receipt, setReceipt] = useState<Receipt | null>(null);
  const run = (work: () => Promise<void>) => {
    props.busy(true);
    props.setError('');
    work().catch((error) => props.setError(message(error))).finally(() => props.busy(false));
  };
  const fetchLoops = async (who: typeof customer): Promise<Loop[]> => {
    if (processor) return (await options.client.sendable(who.token, who.id, props.merchantId)).loops.filter((row) => !row.missing_agreement);
    return (await options.client.redeemable(who.uid)).loops;
  };
  const title = processor ? 'Processor: send for a customer' : 'Sale by pull';
  if (step === 'customer') {
    const fields: Field[] = processor
      ? [{ name: 'token', label: 'Processor token', initial: options.processorToken, secret: true }, { name: 'customer', label: 'Customer profile id' }]
      : [{ name: 'customer', label: 'Customer UID or code text' }];
    return (
      <Box flexDirection="column">
        <Text bold>{title}</Text>
        <Form active fields={fields} onCancel={props.onDone} onDone={(values) => run(async () => {
          const uid = customerUid(values.customer);
          if (!uid) throw new PosError('type a profile id, a UID such as email:pat@example.com, or the code text');
          const who = { uid, id: uid.startsWith('service:') ? uid.slice(8) : '', title: '', token: values.token ?? '' };
          if (processor && !who.id) throw new PosError('the processor needs the customer profile id');
          const found = await fetchLoops(who);
          if (found.length === 0) throw new PosError('this customer holds no brand cash this shop redeems');
          setCustomer(who);
          setLoops(found);
          if (found.length === 1) {
            setLoop(found[0]);
            setStep('amounts');
          } else setStep('loop');
        })} />
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
    const available = toMinor(loop.amount) ?? 0n;
    return (
      <Box flexDirection="column">
        <Text bold>{title}</Text>
        <Text>{loopLine(loop)} available</Text>
        <Form active fields={[{ name: 'total', label: 'Sale total' }, { name: 'brand', label: 'Paid in brand cash', initial: 'as much as possible' }]} onCancel={props.onDone} onDone={(values) => {
          const total = toMinor(values.total);
          if (total === null || total <= 0n) return props.setError('the sale total must be an amount such as 12.50');
          const brand = values.brand === 'as much as possible' ? (available < total ? available : total) : toMinor(values.brand);
          if (brand === null || brand > total) return props.setError('the brand cash part must be an amount no more than the total');
          if (brand > available) return props.setError(`the customer holds only ${loop.amount} ${loop.currency}`);
          props.setError('');
          setSale({ total, brand });
          setStep('confirm');
        }} />
      </Box>
    );
  }
  if (step === 'confirm' && loop && sale) {
    const outside = sale.total - sale.brand;
    return (
      <Box flexDirection="column">
        <Text bold>{title}: confirm</Text>
        <Text>Sale total      {fromMinor(sale.total)} {loop.currency}</Text>
        <Text>{loop.title.slice(0, 14).padEnd(15)} {fromMinor(sale.brand)} {loop.currency}</Text>
        <Text>Outside tender  {fromMinor(outside)} {loop.currency}</Text>
        <Confirm question="Take this payment?" onNo={props.onDone} onYes={() => run(async () => {
          const dedupId = randomUUID();
          const amounts = sale.brand > 0n ? `${loop.loop_id}-${loop.currency}-${fromMinor(sale.brand)}` : undefined;
          const nonServiceAmount = outside > 0n ? fromMinor(outside) : undefined;
          const transfer = processor
            ? await options.client.procSend(customer.token, { senderId: customer.id, recipientId: props.merchantId, amounts, nonServiceAmount, currency: loop.currency, dedupId })
            : await options.client.pull({ senderUid: customer.uid, amounts, nonServiceAmount, currency: loop.currency, dedupId });
          const left = (await fetchLoops(customer).catch(() => [] as Loop[])).find((row) => row.loop_id === loop.loop_id);
          setReceipt({
            transfer,
            lines: [
              `Brand cash      ${fromMinor(sale.brand)} ${loop.currency} (${loop.title.slice(0, 30)})`,
              `Outside tender  ${fromMinor(outside)} ${loop.currency}`,
              `Total           ${fromMinor(sale.total)} ${loop.currency}`,
              `Remaining       ${left?.amount ?? '0.00'} ${loop.currency} of ${loop.title.slice(0, 30)}`,
            ],
          });
          setStep('receipt');
        })} />
      </Box>
    );
  }
  if (step === 'receipt' && receipt) return <ReceiptView receipt={receipt} onDone={props.onDone} />;
  return null;
}
