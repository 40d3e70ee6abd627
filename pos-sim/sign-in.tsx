// The sign-in screen: login, password and second factor, then a business to act for.
import { Box, Text, useApp } from 'ink';
import React, { useState } from 'react';
import { PosError } from './api.ts';
import type { AppOptions } from './options.ts';
import { message, Form } from './widgets.tsx';

export function SignIn(props: { options: AppOptions; onSignedIn(): void; setError(text: string): void; busy(value: boolean): void }) {
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
            const started = await options.client.signIn({ clientId: values.clientId, login: values.login, password: values.password, deviceUuid: options.deviceUuid ?? 'pos-terminal' });
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
