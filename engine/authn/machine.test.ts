// Proves the attempt machine's rules without a database: which factors complete MFA for each
// intent, how failures lead to captcha and expiry, and that a finished attempt takes no codes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { authnCaptchaAfterFailures, authnExpireAfterFailures } from '../limits.ts';
import { attemptMachine, captchaRequired, mfaComplete, type AttemptInput, type PendingFactor } from './machine.ts';

const email: PendingFactor = { factorId: 'aaaa0001', uid: 'email:a@example.com', type: 'email', original: 'a@example.com', country: null, codeHash: 'h', codeLength: 9, viaInvitation: false };
const phone: PendingFactor = { ...email, factorId: 'aaaa0002', uid: 'phone:+15555550100', type: 'phone', original: '(555) 555-0100', country: 'US', codeLength: 6 };

function input(overrides: Partial<AttemptInput> = {}): AttemptInput {
  return {
    intent: 'signup', clientId: '1000000001', site: 'default', deviceUuid: 'd', deviceName: null, permissions: null, closedLoop: false, secretHash: 's',
    login: { uid: email.uid, type: 'email', original: email.original, country: null }, profileId: null, profileTitle: null, typesAvailable: 0, inviteId: null,
    authenticated: {}, pending: email, passwordOk: false, deviceTrusted: false, signup: { firstName: '', lastName: '', passwordHash: null, nameChecked: false },
    trust30: false, expiresAt: '2026-01-01T00:30:00Z', ...overrides,
  };
}

test('a new wallet needs an email and a phone code', () => {
  let [snapshot] = initialTransition(attemptMachine, input());
  [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.code', factorId: email.factorId, ok: true });
  assert.is(snapshot.context.completedMfa, false);
  [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.factor', pending: phone });
  [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.code', factorId: phone.factorId, ok: true });
  assert.is(snapshot.context.completedMfa, true);
});

test('closed loop needs one code; sign-in needs the password and a code or a trusted device', () => {
  const [closed] = transition(attemptMachine, initialTransition(attemptMachine, input({ closedLoop: true, intent: 'signup-closed' }))[0], { type: 'attempt.code', factorId: email.factorId, ok: true });
  assert.is(closed.context.completedMfa, true);
  const signin = initialTransition(attemptMachine, input({ intent: 'signin', profileId: '1000000002', pending: null, signup: null }))[0];
  assert.is(mfaComplete(signin.context), false);
  const [trusted] = transition(attemptMachine, signin, { type: 'attempt.password', ok: true, login: null, deviceTrusted: true });
  assert.is(trusted.context.completedMfa, true);
});

test('failures require captcha, then expire the attempt', () => {
  let [snapshot] = initialTransition(attemptMachine, input());
  for (let failure = 1; failure < authnExpireAfterFailures; failure++) {
    [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.code', factorId: email.factorId, ok: false });
    assert.is(captchaRequired(snapshot.context), failure >= authnCaptchaAfterFailures);
    assert.is(snapshot.value, 'active');
  }
  [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.code', factorId: email.factorId, ok: false });
  assert.is(snapshot.value, 'expired');
  assert.is(snapshot.can({ type: 'attempt.code', factorId: email.factorId, ok: true }), false);
});

test('a code for another factor does not prove the pending one', () => {
  const [snapshot] = transition(attemptMachine, initialTransition(attemptMachine, input())[0], { type: 'attempt.code', factorId: 'other', ok: true });
  assert.equal(snapshot.context.authenticated, {});
  assert.is(snapshot.context.failures, 1);
});

test.run();
