// The merchant terminal: sign in, sale by pull, payment code, processor mode and end of day, in
// 80x24, keyboard only. Every failure is one red line; Esc goes back to the menu.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Box, Text, useApp, useInput, useStdin } from 'ink';
import qrcode from 'qrcode-terminal';
import React, { useEffect, useRef, useState } from 'react';
import { customerUid, fromMinor, PosError, toMinor, type Loop, type PosClient, type ReportRow, type Transfer } from './api.ts';

export interface AppOptions {
  client: PosClient;
  clientId?: string;
  login?: string;
  deviceUuid: string;
  businessId?: string;
  processorToken?: string;
  exportDir: string;
  currency: string;
  today: () => string;
}

type Screen = 'signin' | 'menu' | 'sale' | 'paycode' | 'proc' | 'report';

interface Field {
  name: string;
  label: string;
  secret?: boolean;
  initial?: string;
  optional?: boolean;
}

function message(error: unknown): string {
  if (error instanceof PosError) return error.message;
  return `unexpected problem: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
}

function qrText(text: string): string {
  let drawn = '';
  qrcode.generate(text, { small: true }, (rendered: string) => {
    drawn = rendered;
  });
  return drawn.replace(/\n+$/, '');
}

/**
 * useInput for one screen element: active only once mounted, so the key that opened the screen
 * (a menu choice) is not also typed into it, and only where raw mode exists (never in a pipe).
 */
function useKeys(handler: Parameters<typeof useInput>[0], active = true): void {
  const ready = useRef(false);
  const { isRawModeSupported } = useStdin();
  useEffect(() => {
    const timer = setTimeout(() => {
      ready.current = true;
    }, 0);
    return () => clearTimeout(timer);
  }, []);
  useInput((input, key) => {
    if (ready.current) handler(input, key);
  }, { isActive: active && Boolean(isRawModeSupported) });
}

/** Fields typed one after another: Enter takes the typed value (or the shown default), Esc cancels. */
function Form(props: { fields: Field[]; onDone(values: Record<string, string>): void; onCancel(): void; active: boolean }) {
  // Keystrokes can arrive faster than renders: the current entry lives in a ref, the state only redraws.
  const entry = useRef({ index: 0, values: {} as Record<string, string>, typed: '' });
  const [, redraw] = useState(0);
  const { index, values, typed } = entry.current;
  const field = props.fields[index];
  useKeys((input, key) => {
    const now = entry.current;
    const current = props.fields[now.index];
    if (key.escape) return props.onCancel();
    if (key.return) {
      const value = now.typed.trim() || current.initial || '';
      if (!value && !current.optional) return;
      now.values = { ...now.values, [current.name]: value };
      now.typed = '';
      if (now.index + 1 < props.fields.length) now.index += 1;
      else {
        const done = now.values;
        entry.current = { index: 0, values: {}, typed: '' };
        redraw((count) => count + 1);
        return props.onDone(done);
      }
    } else if (key.backspace || key.delete) now.typed = now.typed.slice(0, -1);
    else if (input && !key.ctrl && !key.meta && !key.tab && !key.upArrow && !key.downArrow) now.typed += input;
    redraw((count) => count + 1);
  }, props.active);
  return (
    <Box flexDirection="column">
      {props.fields.slice(0, index).map((done) => (
        <Text key={done.name}>{done.label}: {done.secret ? '*'.repeat(values[done.name]?.length ?? 0) : values[done.name]}</Text>
      ))}
      <Text>
        <Text color="cyan">{field.label}</Text>
        {field.initial ? <Text dimColor> [{field.secret ? 'given' : field.initial}]</Text> : null}
        {field.optional ? <Text dimColor> (optional)</Text> : null}: {field.secret ? '*'.repeat(typed.length) : typed}
        <Text inverse> </Text>
      </Text>
    </Box>
  );
}

/** Up/Down and Enter over a short list. */
function Choice(props: { items: string[]; onChoose(index: number): void; onCancel(): void }) {
  const position = useRef(0);
  const [at, setAt] = useState(0);
  useKeys((_input, key) => {
    if (key.escape) return props.onCancel();
    if (key.upArrow) position.current = Math.max(0, position.current - 1);
    if (key.downArrow) position.current = Math.min(props.items.length - 1, position.current + 1);
    setAt(position.current);
    if (key.return) props.onChoose(position.current);
  });
  return (
    <Box flexDirection="column">
      {props.items.slice(0, 8).map((item, index) => (
        <Text key={item} color={index === at ? 'green' : undefined}>{index === at ? '> ' : '  '}{item}</Text>
      ))}
    </Box>
  );
}

/** Waits for y (yes) or n/Esc (no). */
function Confirm(props: { question: string; onYes(): void; onNo(): void }) {
  const answered = useRef(false);
  useKeys((input, key) => {
    if (answered.current) return;
    if (input === 'y' || input === 'Y') {
      answered.current = true;
      props.onYes();
    } else if (input === 'n' || input === 'N' || key.escape) props.onNo();
  });
  return <Text color="yellow">{props.question} (y/n)</Text>;
}

/** Waits for Enter (or the named keys). */
function Keys(props: { hint: string; keys?: Record<string, () => void>; onEnter(): void }) {
  useKeys((input, key) => {
    if (key.return || key.escape) return props.onEnter();
    props.keys?.[input]?.();
  });
  return <Text dimColor>{props.hint}</Text>;
}

function loopLine(loop: Loop): string {
  return `${loop.title.slice(0, 40)}  ${loop.amount} ${loop.currency}`;
}

function SignIn(props: { options: AppOptions; onSignedIn(): void; setError(text: string): void; busy(value: boolean): void }) {
  const { options } = props;
  const [attempt, setAttempt] = useState<{ attempt_path: string; secret: string; factor_id: string } | null>(null);
  const [revealed, setRevealed] = useState<string[]>([]);
  const { exit } = useApp();
  const finish = async () => {
    if (options.businessId) await options.client.selectProfile(options.businessId);
    props.onSignedIn();
  };
  const run = (work: () => Promise<void>) => {
    props.busy(true);
    props.setError('');
    work().catch((error) => props.setError(message(error))).finally(() => props.busy(false));
  };
  if (!attempt) {
    return (
      <Box flexDirection="column">
        <Text bold>Sign in (direct authentication)</Text>
        <Form
          active
          fields={[
            { name: 'clientId', label: 'App client id', initial: options.clientId },
            { name: 'login', label: 'Email or phone', initial: options.login },
            { name: 'password', label: 'Password', secret: true },
          ]}
          onCancel={() => exit()}
          onDone={(values) => run(async () => {
            const started = await options.client.signIn({ clientId: values.clientId, login: values.login, password: values.password, deviceUuid: options.deviceUuid });
            if (options.client.token) return finish();
            if (!started.factor_id) throw new PosError('the service asked for more than a code; sign in with an app first');
            setRevealed(started.revealed_codes ?? []);
            setAttempt({ attempt_path: started.attempt_path, secret: started.secret, factor_id: started.factor_id });
          })}
        />
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      <Text bold>Enter the code sent to you</Text>
      {revealed.map((line) => <Text key={line} dimColor>sandbox: {line}</Text>)}
      <Form
        active
        fields={[{ name: 'code', label: 'Code' }]}
        onCancel={() => setAttempt(null)}
        onDone={(values) => run(async () => {
          const answer = await options.client.enterCode(attempt, values.code);
          if (!answer.token) throw new PosError('the code was accepted but sign-in is not complete');
          await finish();
        })}
      />
    </Box>
  );
}

interface Receipt {
  transfer: Transfer;
  lines: string[];
}

function ReceiptView(props: { receipt: Receipt; onDone(): void }) {
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
function Sale(props: { options: AppOptions; merchantId: string; processor: boolean; onDone(): void; setError(text: string): void; busy(value: boolean): void }) {
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

function Paycode(props: { options: AppOptions; merchantId: string; onDone(): void; setError(text: string): void; busy(value: boolean): void }) {
  const { options } = props;
  const [last, setLast] = useState<{ paycode: string; amount: string; totalDue?: string; totalTax?: string; transferId: string } | null>(null);
  const [correcting, setCorrecting] = useState(false);
  const run = (work: () => Promise<void>) => {
    props.busy(true);
    props.setError('');
    work().catch((error) => props.setError(message(error))).finally(() => props.busy(false));
  };
  const receive = (values: { paycode: string; amount: string; totalDue?: string; totalTax?: string }) => run(async () => {
    const answer = await options.client.receive({ ...values, currency: options.currency }) as { transfer?: { id?: string }; transfer_id?: string };
    setLast({ ...values, transferId: answer.transfer?.id ?? answer.transfer_id ?? '' });
    setCorrecting(false);
  });
  const qr = qrText(`cashloop:pay?recipient_uid=service:${props.merchantId}`);
  return (
    <Box flexDirection="row">
      <Box flexDirection="column" width={33}><Text>{qr}</Text></Box>
      <Box flexDirection="column" width={46}>
        <Text bold>Payment code</Text>
        <Text dimColor>The customer scans, sends, and reads out the code.</Text>
        {last && !correcting ? (
          <Box flexDirection="column">
            <Text color="green">Received {last.amount} {options.currency}</Text>
            <Text>Transfer {last.transferId}</Text>
            <Keys hint="c: correct the amount  Enter: menu" keys={{ c: () => setCorrecting(true) }} onEnter={props.onDone} />
          </Box>
        ) : correcting && last ? (
          <Form active fields={[{ name: 'amount', label: 'Corrected amount', initial: last.amount }, { name: 'totalDue', label: 'Total due', initial: last.totalDue, optional: true }]}
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

function EndOfDay(props: { options: AppOptions; onDone(): void; setError(text: string): void; busy(value: boolean): void }) {
  const { options } = props;
  const [rows, setRows] = useState<ReportRow[] | null>(null);
  const [saved, setSaved] = useState('');
  const day = options.today();
  useEffect(() => {
    props.busy(true);
    options.client.report({ startDate: day, endDate: day }).then((answer) => setRows(answer.report)).catch((error) => props.setError(message(error))).finally(() => props.busy(false));
  }, []);
  const exportCsv = () => {
    props.busy(true);
    options.client.reportCsv({ startDate: day, endDate: day })
      .then((csv) => {
        const file = path.join(options.exportDir, `pos-report-${day}.csv`);
        writeFileSync(file, csv);
        setSaved(file);
      })
      .catch((error) => props.setError(message(error)))
      .finally(() => props.busy(false));
  };
  const totals = rows ? reportTotals(rows) : new Map();
  const pad = (text: string, width: number) => text.padStart(width);
  return (
    <Box flexDirection="column">
      <Text bold>End of day {day}</Text>
      {rows === null ? <Text dimColor>Loading the report...</Text> : (
        <Box flexDirection="column">
          <Text>{'type'.padEnd(12)}{pad('rows', 6)}{pad('received', 12)}{pad('funded', 12)}{pad('pending', 12)}{pad('settled', 12)}</Text>
          {[...totals].map(([type, total]) => (
            <Text key={type}>{type.padEnd(12)}{pad(String(total.count), 6)}{pad(fromMinor(total.received), 12)}{pad(fromMinor(total.funded), 12)}{pad(fromMinor(total.pending), 12)}{pad(fromMinor(total.settled), 12)}</Text>
          ))}
          {rows.length === 0 ? <Text dimColor>No payments today.</Text> : null}
          {saved ? <Text color="green">CSV saved to {saved}</Text> : null}
          <Keys hint="e: export CSV  Enter: menu" keys={{ e: exportCsv }} onEnter={props.onDone} />
        </Box>
      )}
    </Box>
  );
}

function Menu(props: { onPick(screen: Screen): void }) {
  const { exit } = useApp();
  useKeys((input) => {
    const screens: Record<string, Screen> = { '1': 'sale', '2': 'paycode', '3': 'proc', '4': 'report' };
    if (screens[input]) props.onPick(screens[input]);
    if (input === 'q') exit();
  });
  return (
    <Box flexDirection="column">
      <Text>1  Sale by pull</Text>
      <Text>2  Payment code</Text>
      <Text>3  Processor mode</Text>
      <Text>4  End of day report</Text>
      <Text>q  Quit</Text>
    </Box>
  );
}

export function App(props: { options: AppOptions }) {
  const { options } = props;
  const [screen, setScreen] = useState<Screen>(options.client.token ? 'menu' : 'signin');
  const [merchant, setMerchant] = useState<{ id: string; title: string } | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const loadMerchant = () => {
    options.client.me().then(setMerchant).catch((failure) => setError(message(failure)));
  };
  useEffect(() => {
    if (options.client.token) loadMerchant();
  }, []);
  const back = () => {
    setError('');
    setScreen('menu');
  };
  const shared = { options, setError, busy: setBusy };
  return (
    <Box flexDirection="column" width={80}>
      <Text bold color="blue">Cashloop POS{merchant ? ` - ${merchant.title.slice(0, 40)}` : ''}  device {options.deviceUuid.slice(0, 20)}</Text>
      <Box flexDirection="column" minHeight={19}>
        {screen === 'signin' ? <SignIn {...shared} onSignedIn={() => { loadMerchant(); setScreen('menu'); }} /> : null}
        {screen === 'menu' ? <Menu onPick={(next) => { setError(''); setScreen(next); }} /> : null}
        {screen === 'sale' && merchant ? <Sale {...shared} merchantId={merchant.id} processor={false} onDone={back} /> : null}
        {screen === 'proc' && merchant ? <Sale {...shared} merchantId={merchant.id} processor onDone={back} /> : null}
        {screen === 'paycode' && merchant ? <Paycode {...shared} merchantId={merchant.id} onDone={back} /> : null}
        {screen === 'report' ? <EndOfDay {...shared} onDone={back} /> : null}
      </Box>
      <Text color="red">{error ? `! ${error.slice(0, 76)}` : busy ? '' : ' '}</Text>
      <Text dimColor>{busy ? 'Working...' : 'Esc: menu  Ctrl+C: quit'}</Text>
    </Box>
  );
}
