// The terminal's building blocks: a form, a choice list, a yes/no question, key hints, and the
// plain-words error line and QR code text.
import { Box, Text, useInput, useStdin, useStdout } from 'ink';
import qrcode from 'qrcode-terminal';
import React, { createContext, useCallback, useContext, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { PosError, screenText, type Loop } from './api.ts';

export interface Field {
  name: string;
  label: string;
  secret?: boolean;
  initial?: string;
  optional?: boolean;
}


export function message(error: unknown): string {
  if (error instanceof PosError) return screenText(error.message);
  return screenText(`unexpected problem: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
}

/** The widest the terminal's lines may be: its real width, at most 80, less one spare column. */
export const screenColumnsMax = 80;

/**
 * The screen's width, following the terminal as it is resized. A layout wider than the terminal
 * (the fixed 79 columns in a narrower window) made the terminal wrap each long line itself: the
 * overflow landed in the first column of the next row, and ink's redraw, which counts the lines it
 * wrote, no longer erased what the terminal had drawn. One column stays free so that no line ends in
 * the last column (terminals without the pending-wrap rule wrap there).
 */
export function useScreenWidth(): number {
  const { stdout } = useStdout();
  const [columns, setColumns] = useState(stdout.columns || screenColumnsMax);
  useEffect(() => {
    const resized = () => setColumns(stdout.columns || screenColumnsMax);
    stdout.on('resize', resized);
    return () => {
      stdout.off('resize', resized);
    };
  }, [stdout]);
  return Math.max(20, Math.min(columns, screenColumnsMax) - 1);
}

export function qrText(text: string): string {
  let drawn = '';
  qrcode.generate(text, { small: true }, (rendered: string) => {
    drawn = rendered;
  });
  return drawn.replace(/\n+$/, '');
}

type KeyHandler = Parameters<typeof useInput>[0];
type KeyEntry = { current: KeyHandler };

const KeysContext = createContext<Set<KeyEntry> | null>(null);

/**
 * The terminal's one ink input listener, mounted once with the app; each screen element's keys
 * (useKeys) are handed on from it. Ink registers a listener only after the frame that shows it is on
 * the screen (an effect), so a key typed at once on a new screen was lost: here a screen's keys are
 * live when its frame is drawn (a layout effect, in the same turn as the drawing).
 */
export function KeysRoot(props: { children: React.ReactNode }) {
  const entries = useRef(new Set<KeyEntry>()).current;
  const { isRawModeSupported } = useStdin();
  const dispatch = useCallback<KeyHandler>((input, key) => {
    // The elements live when the key arrived: a screen the key opens does not also take it.
    for (const entry of [...entries]) if (entries.has(entry)) entry.current(input, key);
  }, [entries]);
  // Only where raw mode exists (never in a pipe).
  useInput(dispatch, { isActive: Boolean(isRawModeSupported) });
  return <KeysContext.Provider value={entries}>{props.children}</KeysContext.Provider>;
}

/** Keys for one screen element, live from the frame that first shows it (under KeysRoot). */
export function useKeys(handler: KeyHandler, active = true): void {
  const entries = useContext(KeysContext);
  const latest = useRef(handler);
  latest.current = handler;
  useLayoutEffect(() => {
    if (!active || !entries) return;
    const entry: KeyEntry = { current: (input, key) => latest.current(input, key) };
    entries.add(entry);
    return () => {
      entries.delete(entry);
    };
  }, [active, entries]);
}

interface FormEntry {
  index: number;
  values: Record<string, string>;
  typed: string;
  /** What was entered last time: after a refusal the form starts again with it shown (Enter keeps it). */
  remembered: Record<string, string>;
}

/** The value Enter takes for a field: what was typed, else what was entered last time, else the field's default. */
function entered(entry: FormEntry, field: Field): string {
  return entry.typed.trim() || entry.remembered[field.name] || field.initial || '';
}

/** Enter on the current field: the next field, or the whole form done (true). */
function submitField(entry: FormEntry, fields: Field[]): boolean {
  const field = fields[entry.index];
  const value = entered(entry, field);
  if (!value && !field.optional) return false;
  entry.values = { ...entry.values, [field.name]: value };
  entry.typed = '';
  if (entry.index + 1 < fields.length) {
    entry.index += 1;
    return false;
  }
  return true;
}

/**
 * Fields typed one after another: Enter takes the typed value (or the shown default), Esc cancels.
 * A burst of keys (a paste, a barcode scanner) arrives as one input with its Enter inside: each
 * line of it is typed and entered in turn. When done, the form starts again from its first field
 * with the values just entered shown as defaults, so a refusal keeps what was typed.
 */
export function Form(props: { fields: Field[]; onDone(values: Record<string, string>): void; onCancel(): void; active: boolean }) {
  // Keystrokes can arrive faster than renders: the current entry lives in a ref, the state only redraws.
  const entry = useRef<FormEntry>({ index: 0, values: {}, typed: '', remembered: {} });
  const [, redraw] = useState(0);
  const { index, values, typed, remembered } = entry.current;
  const field = props.fields[index];
  useKeys((input, key) => {
    const now = entry.current;
    if (key.escape) return props.onCancel();
    if (key.backspace || key.delete) now.typed = now.typed.slice(0, -1);
    else if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) return;
    else {
      const lines = key.return ? ['', ''] : input.split(/\r\n|\r|\n/);
      for (const [position, line] of lines.entries()) {
        now.typed += line;
        if (position === lines.length - 1) break;
        if (submitField(now, props.fields)) {
          const done = now.values;
          entry.current = { index: 0, values: {}, typed: '', remembered: done };
          redraw((count) => count + 1);
          return props.onDone(done);
        }
      }
    }
    redraw((count) => count + 1);
  }, props.active);
  const shown = remembered[field.name] || field.initial;
  return (
    <Box flexDirection="column">
      {props.fields.slice(0, index).map((done) => (
        <Text key={done.name}>{done.label}: {done.secret ? '*'.repeat(values[done.name]?.length ?? 0) : values[done.name]}</Text>
      ))}
      <Text>
        <Text color="cyan">{field.label}</Text>
        {shown ? <Text dimColor> [{field.secret ? 'given' : shown}]</Text> : null}
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
