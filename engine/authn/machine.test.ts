// Proves the attempt machine's rules without a database: which factors complete MFA for each
// intent, how failures lead to captcha and expiry, that a finished attempt takes no codes, and
// that an add-uid attempt's list of pending factors is proven by any one of them, once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { authnCaptchaAfterFailures, authnExpireAfterFailures } from '../limits.ts';
import { attemptMachine, captchaRequired, mfaComplete, pendingFactors, type AttemptContext, type AttemptInput, type PendingFactor } from './machine.ts';

const email: PendingFactor = { factorId: 'aaaa0001', uid: 'email:a@example.com', type: 'email', original: 'a@example.com', country: null, codeHash: 'h', codeLength: 9, viaInvitation: false };
const phone: PendingFactor = { ...email, factorId: 'aaaa0002', uid: 'phone:+15555550100', type: 'phone', original: '(555) 555-0100', country: 'US', codeLength: 6 };

function input(overrides: Partial<AttemptInput> = {}): AttemptInput {
  return {
    intent: 'signup', clientId: '1000000001', site: 'default', deviceUuid: 'd', deviceName: null, permissions: null, closedLoop: false, secretHash: 's',
    login: { uid: email.uid, type: 'email', original: email.original, country: null }, profileId: null, profileTitle: null, typesAvailable: 0, inviteId: null,
    authenticated: {}, pending: [email], passwordOk: false, deviceTrusted: false, signup: { firstName: '', lastName: '', passwordHash: null, nameChecked: false },
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
  const signin = initialTransition(attemptMachine, input({ intent: 'signin', profileId: '1000000002', pending: [], signup: null }))[0];
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

const phoneGb: PendingFactor = { ...phone, factorId: 'aaaa0003', uid: 'phone:+445555550100', original: '055 5555 0100', country: 'GB' };
const addUid = (): AttemptInput => input({ intent: 'add-uid', profileId: '1000000002', signup: null, pending: [phone, phoneGb] });

test('add-uid: each pending number counts as issued; a code for the second proves only the second and clears the list', () => {
  let [snapshot] = initialTransition(attemptMachine, addUid());
  assert.is(snapshot.context.factorsIssued, 2);
  assert.equal(pendingFactors(snapshot.context).map((factor) => factor.uid), [phone.uid, phoneGb.uid]);
  [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.code', factorId: phoneGb.factorId, ok: true });
  assert.equal(Object.keys(snapshot.context.authenticated), [phoneGb.uid]);
  assert.is(snapshot.context.authenticated[phoneGb.uid].country, 'GB');
  assert.is(snapshot.context.completedMfa, true);
  assert.equal(snapshot.context.pending, []);
  [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.code', factorId: phone.factorId, ok: true });
  assert.equal(Object.keys(snapshot.context.authenticated), [phoneGb.uid], 'the other number is no longer pending');
  assert.is(snapshot.context.failures, 1);
});

test('add-uid: wrong codes for any pending number count toward the same limits', () => {
  let [snapshot] = initialTransition(attemptMachine, addUid());
  for (let failure = 1; failure < authnExpireAfterFailures; failure++) {
    const factorId = failure % 2 === 0 ? phone.factorId : phoneGb.factorId;
    [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.code', factorId, ok: false });
    assert.is(snapshot.context.failures, failure);
    assert.is(captchaRequired(snapshot.context), failure >= authnCaptchaAfterFailures);
  }
  [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.code', factorId: phone.factorId, ok: false });
  assert.is(snapshot.value, 'expired');
});

test('attempt.factor replaces the pending list with the one new factor', () => {
  let [snapshot] = initialTransition(attemptMachine, input({ pending: [] }));
  assert.is(snapshot.context.factorsIssued, 0);
  [snapshot] = transition(attemptMachine, snapshot, { type: 'attempt.factor', pending: phone });
  assert.equal(snapshot.context.pending, [phone]);
  assert.is(snapshot.context.factorsIssued, 1);
});

test('a snapshot stored before the list (one factor or null) still reads and proves its factor', () => {
  const legacy = (pending: PendingFactor | null) => ({ pending }) as unknown as Pick<AttemptContext, 'pending'>;
  assert.equal(pendingFactors(legacy(email)), [email]);
  assert.equal(pendingFactors(legacy(null)), []);
  const stored = attemptMachine.resolveState({ value: 'active', context: { ...initialTransition(attemptMachine, input())[0].context, pending: email as never } });
  const [snapshot] = transition(attemptMachine, stored, { type: 'attempt.code', factorId: email.factorId, ok: true });
  assert.equal(Object.keys(snapshot.context.authenticated), [email.uid]);
  assert.equal(snapshot.context.pending, []);
});

test.run();
