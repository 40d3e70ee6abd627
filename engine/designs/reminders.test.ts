// Proves when remind-brand-cash reminders are due: each email_freq on its days, none when null.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { frequencyDue, nextReminderAt } from './reminders.ts';

const monday = new Date('2026-03-02T00:00:00Z');
const thursday = new Date('2026-03-05T00:00:00Z');
const firstOfApril = new Date('2026-04-01T00:00:00Z');

test('each frequency is due on its days only', () => {
  assert.equal([monday, thursday, firstOfApril].map((day) => frequencyDue('daily', day)), [true, true, true]);
  assert.equal([monday, thursday, firstOfApril].map((day) => frequencyDue('weekly', day)), [true, false, false]);
  assert.equal([monday, thursday, firstOfApril].map((day) => frequencyDue('weekly2', day)), [true, true, false]);
  assert.equal([monday, thursday, firstOfApril].map((day) => frequencyDue('monthly', day)), [false, false, true]);
  assert.equal([monday, thursday, firstOfApril].map((day) => frequencyDue(null, day)), [false, false, false]);
});

test('the next reminder is the start of the next UTC day', () => {
  assert.is(nextReminderAt(new Date('2026-03-01T12:00:00Z')).toISOString(), '2026-03-02T00:00:00.000Z');
  assert.is(nextReminderAt(new Date('2026-03-02T00:00:00Z')).toISOString(), '2026-03-03T00:00:00.000Z');
});

test.run();
