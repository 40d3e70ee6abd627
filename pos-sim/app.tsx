// The merchant terminal: sign in, sale by pull, payment code, processor mode and end of day, in
// 80x24, keyboard only. Every failure is one red line; Esc goes back to the menu from any screen
// (on sign-in it steps back, and quits from the first step), as the footer says.
import { Box, Text, useApp } from 'ink';
import React, { useEffect, useState } from 'react';
import type { AppOptions, Screen } from './options.ts';
import { EndOfDay } from './end-of-day.tsx';
import { Paycode } from './paycode.tsx';
import { Sale } from './sale.tsx';
import { SignIn } from './sign-in.tsx';
import { IncomingPayment, useReceiveFeed } from './receive-feed.tsx';
import { KeysRoot, message, useKeys, useScreenWidth } from './widgets.tsx';

export type { AppOptions } from './options.ts';
export { reportTotals } from './end-of-day.tsx';

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

function footerHint(screen: Screen): string {
  if (screen === 'signin') return 'Esc: back (quits on the first step)  Ctrl+C: quit';
  if (screen === 'menu') return 'q: quit  Ctrl+C: quit';
  return 'Esc: menu  Ctrl+C: quit';
}

export function App(props: { options: AppOptions }) {
  return <KeysRoot><Terminal options={props.options} /></KeysRoot>;
}

function Terminal(props: { options: AppOptions }) {
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
  useKeys((_input, key) => {
    if (key.escape && screen !== 'menu' && screen !== 'signin') back();
  });
  const shared = { options, setError, busy: setBusy };
  const device = options.deviceUuid ? `device ${options.deviceUuid.slice(0, 36)}` : "device: the token's";
  // As wide as the terminal allows (useScreenWidth): never a line the terminal has to wrap itself.
  const width = useScreenWidth();
  const feed = useReceiveFeed(options.client, merchant?.id ?? null);
  return (
    <Box flexDirection="column" width={width}>
      <Text bold color="blue" wrap="truncate">Cashloop POS{merchant ? ` - ${merchant.title.slice(0, 30)}` : ''}  {device}</Text>
      <Box flexDirection="column" minHeight={19}>
        {screen === 'signin' ? <SignIn {...shared} onSignedIn={() => { loadMerchant(); setScreen('menu'); }} /> : null}
        {screen === 'menu' ? <Menu onPick={(next) => { setError(''); setScreen(next); }} /> : null}
        {screen === 'sale' && merchant ? <Sale {...shared} merchantId={merchant.id} processor={false} onDone={back} /> : null}
        {screen === 'proc' && merchant ? <Sale {...shared} merchantId={merchant.id} processor onDone={back} /> : null}
        {screen === 'paycode' && merchant ? <Paycode {...shared} merchantId={merchant.id} onDone={back} /> : null}
        {screen === 'report' ? <EndOfDay {...shared} onDone={back} refreshKey={feed.count} /> : null}
      </Box>
      {/* The error line, or the receive feed's cue when there is no error. */}
      {error ? <Text color="red">{`! ${error.slice(0, width - 3)}`}</Text> : <IncomingPayment feed={feed} />}
      <Text dimColor>{busy ? 'Working...' : footerHint(screen)}</Text>
    </Box>
  );
}
