// The terminal's building blocks: a form, a choice list, a yes/no question, key hints, and the
// plain-words error line and QR code text.
import { Box, Text, useInput, useStdin } from 'ink';
import qrcode from 'qrcode-terminal';
import React, { useEffect, useRef, useState } from 'react';
import { PosError, type Loop } from './api.ts';

export interface Field {
  name: string;
  label: string;
  secret?: boolean;
  initial?: string;
  optional?: boolean;
}


export function message(error: unknown): string {
  if (error instanceof PosError) return error.message;
  return `unexpected problem: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
}

export function qrText(text: string): string {
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
export function useKeys(handler: Parameters<typeof useInput>[0], active = true): void {
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
export function Form(props: { fields: Field[]; onDone(values: Record<string, string>): void; onCancel(): void; active: boolean }) {
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
export function Choice(props: { items: string[]; onChoose(index: number): void; onCancel(): void }) {
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
export function Confirm(props: { question: string; onYes(): void; onNo(): void }) {
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
export function Keys(props: { hint: string; keys?: Record<string, () => void>; onEnter(): void }) {
  useKeys((input, key) => {
    if (key.return || key.escape) return props.onEnter();
    props.keys?.[input]?.();
  });
  return <Text dimColor>{props.hint}</Text>;
}


export function loopLine(loop: Loop): string {
  return `${loop.title.slice(0, 40)}  ${loop.amount} ${loop.currency}`;
}
