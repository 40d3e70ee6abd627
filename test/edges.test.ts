// The edges stay thin: routes reach the engine only through its services. The route context's
// type (EdgeEngine) has no database or command runner; this test also refuses the ways around it
// (a cast, the services' core, a store module imported into a route).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { offReasons, offSound, type MovementKind, type Rung } from '../engine/transfers/rungs.ts';

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const full = path.join(directory, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) ? [full] : [];
  });
}

const edgeFiles = [...sourceFiles('api/routes'), ...sourceFiles('api/http')];

const forbidden: { pattern: RegExp; why: string }[] = [
  { pattern: /\bengine\.(sql|commands|database|locks|sweeper|outbox)\b/, why: 'reaches the database or the command runner' },
  { pattern: /\bservices\.core\b/, why: 'reaches the services\' core' },
  { pattern: /\bas (unknown as )?Engine\b/, why: 'casts its way to the whole engine' },
  { pattern: /from '\.\.\/\.\.\/engine\/[a-z]+\/store\.ts'/, why: 'imports a store module' },
  { pattern: /from '\.\.\/\.\.\/engine\/storage\//, why: 'imports storage' },
];

test('routes reach the engine only through its services', () => {
  assert.ok(edgeFiles.length > 10, 'the edge files were found');
  const found: string[] = [];
  for (const file of edgeFiles) {
    readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
      for (const rule of forbidden) if (rule.pattern.test(line)) found.push(`${file}:${index + 1} ${rule.why}: ${line.trim()}`);
    });
  }
  assert.equal(found, []);
});

test('the rule catches what it is meant to catch', () => {
  const offending = ['await engine.sql`select 1`', 'engine.commands.run(', 'engine.services.core.sql', 'const e = engine as Engine;', "import { x } from '../../engine/profiles/store.ts';"];
  for (const line of offending) assert.ok(forbidden.some((rule) => rule.pattern.test(line)), line);
  assert.not.ok(forbidden.some((rule) => rule.pattern.test('await engine.services.profileAccess.get(id)')));
});

function linesMatching(files: readonly string[], pattern: RegExp): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
      if (pattern.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
    });
  }
  return found;
}

// A bound written as a number: a zod max/min, a bounded string, a cookie age, a parser limit.
const limitNumber = /(\.max|\.min|boundedString|requiredString)\(\s*-?\d{2,}|Max-Age=[1-9]\d*|parameterLimit: \d|depth > \d/;
// A SQL list cut at a written number (`limit 1`, one row, is not a limit).
const sqlLimitNumber = /\blimit \d{2,}\b/i;

test('no number in api/ names a limit: every bound is a constant of engine/limits.ts', () => {
  assert.equal(linesMatching([...sourceFiles('api')], limitNumber), []);
  assert.ok(limitNumber.test("name: boundedString(100, 1),") && limitNumber.test('z.string().max(2000)') && !limitNumber.test('boundedString(loginCharsMax, 1)'));
});

// The limits live by domain in engine/limits/; engine/limits.ts is the one place they are imported from.
const limitsFileLinesMax = 450;

test('engine/limits.ts only re-exports engine/limits/, each domain file under 450 lines', () => {
  const index = readFileSync('engine/limits.ts', 'utf8').split('\n').filter((line) => line.trim() && !line.startsWith('//'));
  assert.equal(index.filter((line) => !/^export \* from '\.\/limits\/[a-z-]+\.ts';$/.test(line)), []);
  const domains = sourceFiles('engine/limits');
  assert.equal(domains.map((file) => `export * from './limits/${path.basename(file)}';`).sort(), [...index].sort(), 'every domain file is re-exported');
  assert.equal(domains.filter((file) => readFileSync(file, 'utf8').split('\n').length > limitsFileLinesMax), []);
});

// A file a reader takes in whole: no production file of engine/ (migrations aside) grows past the
// limit the limits files keep; a longer one is split by concern (engine/ledger/*-store.ts).
test('no production file of engine/ is over 450 lines', () => {
  const files = sourceFiles('engine').filter((file) => !file.includes('/migrations/'));
  assert.ok(files.length > 100, 'the source files were found');
  const lineCount = (file: string) => readFileSync(file, 'utf8').split('\n').length;
  assert.equal(files.filter((file) => lineCount(file) > limitsFileLinesMax).map((file) => `${file}: ${lineCount(file)} lines`), []);
});

test('no SQL truncates a list at a written number', () => {
  assert.equal(linesMatching(sourceFiles('engine'), sqlLimitNumber), []);
  assert.ok(sqlLimitNumber.test('order by id limit 100') && !sqlLimitNumber.test('order by id limit 1`'));
});

// Cash is the ledger's: notes and balances are read and written in SQL only under engine/ledger/
// (the gate's moves, issues and locks, and the ledger's reads other domains call).
const notesOrBalancesSql = /\b(from|join|update|into)\s+(notes|balances)\b/i;

test('no SQL outside engine/ledger/ touches notes or balances', () => {
  const outsideLedger = sourceFiles('engine').filter((file) => !file.startsWith(path.join('engine', 'ledger') + path.sep) && !file.includes(`${path.sep}migrations${path.sep}`));
  assert.equal(linesMatching(outsideLedger, notesOrBalancesSql), []);
  assert.ok(notesOrBalancesSql.test('select serial from notes where') && notesOrBalancesSql.test('update balances set') && !notesOrBalancesSql.test('the notes of a wallet'));
});

// One error table per domain, and each code mapped to its answer once: a code that answers the
// same in two domains refers to the one mapping (`invalid: edgeErrors.invalid`), and a code whose
// answer differs is a different code (`bank_account_not_found`, `proxy_account_not_found`).
function errorMappings(files: readonly string[]): Map<string, string[]> {
  const mappings = new Map<string, string[]>();
  for (const file of files) {
    for (const table of readFileSync(file, 'utf8').matchAll(/errorTable<[^>]+>\(\{([\s\S]*?)\n\}\)/g)) {
      for (const entry of table[1].matchAll(/^\s*([a-z_]+):\s*(\{|[a-zA-Z]+\()/gm)) mappings.set(entry[1], [...(mappings.get(entry[1]) ?? []), file]);
    }
  }
  return mappings;
}

test('every error code is mapped to its answer once', () => {
  const mappings = errorMappings(sourceFiles('api'));
  assert.ok(mappings.size > 50, 'the error tables were found');
  assert.equal([...mappings].filter(([, files]) => files.length > 1).map(([code, files]) => `${code}: ${files.join(', ')}`), []);
});

// Amounts are read once, at the edge (api/http/fields.ts), into a Decimal or money; engine services
// take those values. Reading amount text is left to money.ts and the `amounts` grammar itself, and
// to a design image's path segment, which names an image rather than moves money.
const amountTextReaders = new Set(['engine/money.ts', 'engine/ledger/allocation.ts', 'engine/designs/design-image.ts']);
const readsAmountText = /\b(parseAmount|parsePositiveAmount|parseAmounts|parseDecimal)\(/;

test('engine services take amounts the edge has read; they do not read amount text', () => {
  const engineFiles = sourceFiles('engine').filter((file) => !amountTextReaders.has(file.split(path.sep).join('/')));
  assert.equal(linesMatching(engineFiles, readsAmountText), []);
  assert.ok(readsAmountText.test('const parsed = parsePositiveAmount(input.amount, currency);') && !readsAmountText.test('positiveMoneyOf(input.amount, currency)'));
});

// The TypeScript compiler API (5.x) from the openapi-typescript tool; the project's own tsc is the native 7.x, which has none.
type TypeScript = typeof import('../tools/openapi-typescript/node_modules/typescript/lib/typescript.js');
const typescript = (): TypeScript => createRequire(import.meta.url)('../tools/openapi-typescript/node_modules/typescript/lib/typescript.js') as TypeScript;

/** Functions (declarations, methods, arrows, expressions) longer than `limit` lines in a source file. */
function longFunctions(file: string, limit: number): string[] {
  const ts = typescript();
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: import('../tools/openapi-typescript/node_modules/typescript/lib/typescript.js').Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      if (lines > limit) found.push(`${file}:${first + 1} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no function outside tests and migrations is over 70 lines', () => {
  const files = ['engine', 'api', 'cli', 'pos-sim'].flatMap(sourceFiles).filter((file) => !file.endsWith('.d.ts') && !file.includes('/migrations/'));
  assert.ok(files.length > 100, 'the source files were found');
  assert.equal(files.flatMap((file) => longFunctions(file, 70)), []);
});

// A domain's tables are read and written only by its own store (engine/<domain>/store.ts, or a
// named *-store.ts beside it); another domain calls the owner's public functions. engine/storage/
// is the database layer every domain opens, not a domain's tables. Imports allowed anyway, as
// 'engine/<from>.ts -> <specifier>': none.
const crossDomainStoreImportsAllowed: readonly string[] = [];

/** The domain of a path under engine/ (its first directory), or '' for the engine's own root files. */
function domainOf(file: string): string {
  const parts = path.relative('engine', file).split(path.sep);
  return parts.length > 1 ? parts[0] : '';
}

/** Each import, export-from, import() and import type of another domain's store in a source, as 'file:line: specifier'. */
function crossDomainStoreImports(file: string, text: string): string[] {
  const ts = typescript();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const check = (node: import('../tools/openapi-typescript/node_modules/typescript/lib/typescript.js').Node, specifier: string): void => {
    if (!specifier.startsWith('.')) return;
    const target = path.join(path.dirname(file), specifier);
    if (!/(^|-)store\.ts$/.test(path.basename(target)) || path.relative('engine', target).startsWith('..')) return;
    const domain = domainOf(target);
    if (domain === domainOf(file) || domain === 'storage') return;
    if (crossDomainStoreImportsAllowed.includes(`${file.split(path.sep).join('/')} -> ${specifier}`)) return;
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: imports ${specifier}, the store of the ${domain || 'engine root'} domain`);
  };
  const visit = (node: import('../tools/openapi-typescript/node_modules/typescript/lib/typescript.js').Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) check(node, node.moduleSpecifier.text);
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) check(node, node.arguments[0].text);
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) check(node, node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("no domain reads or writes another domain's tables: engine code imports no other domain's store", () => {
  const files = sourceFiles('engine').filter((file) => !file.includes(`${path.sep}migrations${path.sep}`));
  assert.ok(files.length > 100, 'the engine files were found');
  assert.equal(files.flatMap((file) => crossDomainStoreImports(file, readFileSync(file, 'utf8'))), []);
});

test('the store rule catches what it is meant to catch', () => {
  const file = path.join('engine', 'designs', 'example.ts');
  const offending = [
    "import * as ledgerStore from '../ledger/store.ts';", "import type { MovementRow } from '../ledger/store.ts';", "export { selectTransfer } from '../transfers/store.ts';",
    "const store = await import('../pos/store.ts');", "let row: import('../transfers/store.ts').TransferRow;", "import { x } from '../transfers/search-store.ts';",
    "import {\n  selectActor,\n} from '../actors/store.ts';",
  ];
  for (const text of offending) assert.equal(crossDomainStoreImports(file, text).length, 1, text);
  const fine = ["import * as store from './store.ts';", "import { designById } from '../designs/queries.ts';", "import { installationSecret } from '../storage/installation-store.ts';", "import * as store from '../designs/store.ts';"];
  for (const text of fine) assert.equal(crossDomainStoreImports(file, text), [], text);
});

// Money carries its currency (issue 38): in engine/, a type that holds cash as a bare bigint (a
// field named amount or fee, or ending in Amount, _amount, Fee or _fee) names its currency beside
// it (a field currency, or ending in Currency or _currency); otherwise it holds Money
// (engine/money.ts). A row type a SQL query is read into (db<{ amount: bigint }[]>`…`) is the
// store's boundary: its query names the currency. Types allowed anyway, as 'file: Type.field' with why:
const bareCashAllowed: readonly string[] = [
  // The audit's two totals of one key (a redemption or settle transfer, of one currency), compared for equality.
  'engine/pos/store.ts: SettlementAuditRow.left_amount', 'engine/pos/store.ts: SettlementAuditRow.right_amount',
];
const cashFieldName = /^(amount|fee)$|Amount$|_amount$|Fee$|_fee$/;
const currencyFieldName = /^currency$|Currency$|_currency$/;

/** Fields of types in a source that hold cash as a bigint with no currency beside them, as 'file:line: Type.field'. */
function bareCashFields(file: string, text: string): string[] {
  const ts = typescript();
  type Node = import('../tools/openapi-typescript/node_modules/typescript/lib/typescript.js').Node;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const hasBigint = (node: Node): boolean => node.kind === ts.SyntaxKind.BigIntKeyword || (ts.forEachChild(node, (child) => hasBigint(child) || undefined) ?? false);
  const isSqlRow = (node: Node): boolean => {
    let at: Node = node;
    while (ts.isArrayTypeNode(at.parent) || ts.isParenthesizedTypeNode(at.parent)) at = at.parent;
    return ts.isTaggedTemplateExpression(at.parent) && (at.parent.typeArguments ?? []).includes(at as never);
  };
  const visit = (node: Node): void => {
    if ((ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) && !isSqlRow(node)) {
      const names = node.members.flatMap((member) => (member.name && ts.isIdentifier(member.name) ? [member.name.text] : []));
      const typeName = ts.isInterfaceDeclaration(node) ? node.name.text : ts.isTypeAliasDeclaration(node.parent) ? node.parent.name.text : '{…}';
      for (const member of node.members) {
        if (!ts.isPropertySignature(member) || !member.type || !ts.isIdentifier(member.name) || !cashFieldName.test(member.name.text) || !hasBigint(member.type)) continue;
        if (names.some((name) => currencyFieldName.test(name))) continue;
        const named = `${file.split(path.sep).join('/')}: ${typeName}.${member.name.text}`;
        if (!bareCashAllowed.includes(named)) found.push(`${file}:${source.getLineAndCharacterOfPosition(member.getStart()).line + 1}: ${typeName}.${member.name.text}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no engine type holds cash as a bare bigint without its currency: Money, or a currency field beside it', () => {
  const files = sourceFiles('engine').filter((file) => !file.endsWith('.d.ts') && !file.includes(`${path.sep}migrations${path.sep}`));
  assert.ok(files.length > 100, 'the engine files were found');
  assert.equal(files.flatMap((file) => bareCashFields(file, readFileSync(file, 'utf8'))), []);
});

test('the money rule catches what it is meant to catch', () => {
  const file = path.join('engine', 'ledger', 'example.ts');
  const offending = [
    'export interface Pick { serial: bigint; loopId: string; amount: bigint }', 'type Fee = { recipientId: string; fee: bigint };',
    'function f(row: { transferId: string; amount?: bigint | null }) {}', 'interface Option { sendAmount: bigint; depositAmount: Money }',
    'const x: { received_amount: bigint }[] = [];', 'interface Split { paid: Money; fees: { recipientId: string; amount: bigint }[] }',
  ];
  for (const text of offending) assert.equal(bareCashFields(file, text).length, 1, text);
  const fine = [
    'export interface Pick { serial: bigint; loopId: string; money: Money }', 'interface Row { currency: string; amount: bigint }',
    'interface Receivable { receivedCurrency: string; receivedAmount: bigint }', 'interface Counts { count: bigint; serial: bigint }',
    'const rows = await sql<{ amount: bigint }[]>`select amount from balances`;', 'interface Change { amount?: Money }',
    'interface Text { amount: string }',
  ];
  for (const text of fine) assert.equal(bareCashFields(file, text), [], text);
  assert.equal(bareCashFields(path.join('engine', 'pos', 'store.ts'), 'export interface SettlementAuditRow { kind: string; left_amount: bigint; right_amount: bigint }'), []);
});


// Production modules import one another without a cycle: a part of a domain imports the domain's
// types from a leaf types.ts, not from its service.ts, which imports the parts.
const productionFiles = ['engine', 'api', 'cli', 'pos-sim'].flatMap(sourceFiles);

/** Each production file's relative imports (type-only ones too) that name another production file. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const ts = typescript();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const targets: string[] = [];
    for (const statement of source.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
      const specifier = statement.moduleSpecifier;
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
      const target = path.normalize(path.join(path.dirname(file), specifier.text));
      if (known.has(target)) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The import cycles of a graph: its strongly connected components of more than one file (Tarjan). */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

test('no import cycle among the production files of engine/, api/, cli/ and pos-sim/', () => {
  assert.ok(productionFiles.length > 200, 'the production files were found');
  assert.equal(importCycles(importGraph(productionFiles)).map((cycle) => cycle.join(' <-> ')), []);
});

test('the cycle rule catches what it is meant to catch', () => {
  const graph = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']], ['e.ts', ['e.ts']]]);
  assert.equal(importCycles(graph), [['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
});

// A path turns a gate rung off only for one of the rung's reasons declared in
// engine/transfers/rungs.ts (issue 38): no `off:` in engine/ names free text. tsc refuses prose
// where the Movement's type reaches; this rule also covers what a cast or a widened object would let through.
type Node = import('../tools/openapi-typescript/node_modules/typescript/lib/typescript.js').Node;
const declaredReasons = new Map(Object.entries(offReasons).map(([rung, reasons]) => [rung, new Set(Object.keys(reasons))]));
const anyReason = new Set([...declaredReasons.values()].flatMap((reasons) => [...reasons]));

/** Each `off:` in a source whose text is not a declared reason (of its rung, when the rung is named), as 'file:line: text'. */
function freeTextRungReasons(file: string, text: string): string[] {
  const ts = typescript();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  /** The rung an `{ off }` object stands for: the property it is the value of, through `?:`, `??` and parentheses. */
  const rungOf = (object: Node): string | null => {
    let node = object.parent;
    while (ts.isConditionalExpression(node) || ts.isBinaryExpression(node) || ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) node = node.parent;
    return ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) ? node.name.text : null;
  };
  const texts = (value: Node): Node[] => {
    if (ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value) || ts.isTemplateExpression(value)) return [value];
    const inner: Node[] = [];
    ts.forEachChild(value, (child) => { inner.push(...texts(child)); });
    return inner;
  };
  const visit = (node: Node): void => {
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && node.name.text === 'off') {
      const rung = rungOf(node.parent);
      const allowed = (rung !== null ? declaredReasons.get(rung as Rung) : undefined) ?? anyReason;
      for (const literal of texts(node.initializer)) {
        if ((ts.isStringLiteral(literal) || ts.isNoSubstitutionTemplateLiteral(literal)) && allowed.has(literal.text)) continue;
        found.push(`${file}:${source.getLineAndCharacterOfPosition(literal.getStart()).line + 1}: ${rung ?? 'a rung'} off for ${literal.getText()}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no free-text rung reasons: every `off:` in engine/ is a reason engine/transfers/rungs.ts declares for its rung', () => {
  const files = sourceFiles('engine');
  assert.ok(files.length > 100, 'the engine files were found');
  let offs = 0;
  for (const file of files) offs += (readFileSync(file, 'utf8').match(/\boff: '/g) ?? []).length;
  assert.ok(offs > 60, 'the paths\' reasons were found');
  assert.equal(files.flatMap((file) => freeTextRungReasons(file, readFileSync(file, 'utf8'))), []);
});

test('the rung reasons rule catches what it is meant to catch', () => {
  const file = path.join('engine', 'designs', 'example.ts');
  const offending = [
    "passGate(unit, { holding: { off: 'open loop cash: the holding rules are brand cash rules' } });",
    "const leg = { dedup: { off: 'the payout actor settles once' } as Off };",
    'passGate(unit, { transfer: { off: `recorded by ${who}` } });',
    "passGate(unit, { dedup: dedup ?? { off: 'no dedup_id given' } });",
    "passGate(unit, { holding: paid ? { off: 'open_loop' } : { off: 'nothing moves' } });",
    "passGate(unit, { transfer: { off: 'open_loop' } });",
    "passGate(unit, { move: { from, to, lines: { off: 'escrow: recorded later' } } });",
    "const x = { off: 'sometimes' };",
  ];
  for (const text of offending) assert.equal(freeTextRungReasons(file, text).length, 1, text);
  const fine = [
    "passGate(unit, { holding: { off: 'open_loop' }, dedup: dedup ?? { off: 'no_dedup_id' } });",
    "passGate(unit, { holding: paid ? { off: 'open_loop' } : { off: 'nothing_moves' } });",
    "passGate(unit, { move: { from, to, lines: { off: 'escrow_in' } } });",
    "const backoff = { backoff: 'exponential' }; // wal_recycle off: not a rung",
  ];
  for (const text of fine) assert.equal(freeTextRungReasons(file, text), [], text);
});

/** The string literals an expression can be, through `?:`, `??` and parentheses (a conditional kind or reason). */
function literalsOf(ts: TypeScript, node: Node): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isParenthesizedExpression(node)) return literalsOf(ts, node.expression);
  if (ts.isConditionalExpression(node)) return [...literalsOf(ts, node.whenTrue), ...literalsOf(ts, node.whenFalse)];
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return literalsOf(ts, node.right);
  return [];
}

/** The `{ off }` reasons a rung's value can name, through `?:`, `??` and parentheses. */
function offReasonsOf(ts: TypeScript, node: Node): string[] {
  if (ts.isParenthesizedExpression(node)) return offReasonsOf(ts, node.expression);
  if (ts.isConditionalExpression(node)) return [...offReasonsOf(ts, node.whenTrue), ...offReasonsOf(ts, node.whenFalse)];
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return offReasonsOf(ts, node.right);
  if (!ts.isObjectLiteralExpression(node)) return [];
  const off = node.properties.find((property) => ts.isPropertyAssignment(property) && ts.isIdentifier(property.name) && property.name.text === 'off');
  return off && ts.isPropertyAssignment(off) ? literalsOf(ts, off.initializer) : [];
}

/**
 * Each movement written as an object literal with a literal `kind` whose rungs (and its move's lines)
 * turn off for a reason sound for none of the kinds it can be, as 'file:line: ...': the gate's own
 * check, ahead of any test that reaches the path. A kind written as `?:` may pair with a reason
 * written as `?:`, so a reason need be sound for one of the kinds (the gate checks the pair itself).
 */
function unsoundRungReasons(file: string, text: string, checked = { reasons: 0 }): string[] {
  const ts = typescript();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const rungs = new Set(Object.keys(offReasons).filter((rung) => rung !== 'lines'));
  const visit = (node: Node): void => {
    const kind = ts.isObjectLiteralExpression(node)
      ? node.properties.find((property) => ts.isPropertyAssignment(property) && ts.isIdentifier(property.name) && property.name.text === 'kind')
      : undefined;
    const kinds = kind && ts.isPropertyAssignment(kind) ? literalsOf(ts, kind.initializer) as MovementKind[] : [];
    if (ts.isObjectLiteralExpression(node) && kinds.length > 0) {
      for (const property of node.properties) {
        if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name) || !rungs.has(property.name.text)) continue;
        const checks: [Rung, string][] = offReasonsOf(ts, property.initializer).map((reason) => [property.name.getText() as Rung, reason]);
        if (property.name.text === 'move' && ts.isObjectLiteralExpression(property.initializer)) {
          const lines = property.initializer.properties.find((inner) => ts.isPropertyAssignment(inner) && ts.isIdentifier(inner.name) && inner.name.text === 'lines');
          if (lines && ts.isPropertyAssignment(lines)) checks.push(...offReasonsOf(ts, lines.initializer).map((reason): [Rung, string] => ['lines', reason]));
        }
        for (const [rung, reason] of checks) {
          checked.reasons += 1;
          if (kinds.some((one) => offSound(one, rung, reason))) continue;
          found.push(`${file}:${source.getLineAndCharacterOfPosition(property.getStart()).line + 1}: a ${kinds.join(' or ')} movement turns off ${rung} for '${reason}'`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("every movement written with its kind turns rungs off only for reasons sound for that kind", () => {
  const files = sourceFiles('engine');
  const checked = { reasons: 0 };
  assert.equal(files.flatMap((file) => unsoundRungReasons(file, readFileSync(file, 'utf8'), checked)), []);
  assert.ok(checked.reasons > 60, `the paths' reasons were checked (${checked.reasons})`);
});

test('the rung soundness rule catches what it is meant to catch', () => {
  const file = path.join('engine', 'designs', 'example.ts');
  const offending = [
    "passGate(unit, { kind: 'payment', holding: { off: 'sender_own_cash' } });",
    "passGate(unit, { kind: 'record', transfer: { off: 'recorded_by_path' } });",
    "passGate(unit, { kind: 'issue', authority: recipient ? { closedLoopOnly, fieldName } : { off: 'sender_own_cash' } });",
    "passGate(unit, { kind: 'release', move: { from, to, lines: { off: 'escrow_in' } } });",
    "passGate(unit, { kind: paid ? 'payment' : 'record', move: { off: 'recorded_by_path' } });",
  ];
  for (const text of offending) assert.equal(unsoundRungReasons(file, text).length, 1, text);
  const fine = [
    "passGate(unit, { kind: 'escrow_return', holding: { off: 'sender_own_cash' }, move: { from, to, lines: { off: 'escrow_return' } } });",
    "passGate(unit, { kind: paid ? 'payment' : 'record', holding: { off: paid ? 'open_loop' : 'nothing_moves' }, move: paid ? move : { off: 'nothing_moves' } });",
    "passGate(unit, { kind: 'payment', dedup: dedup ?? { off: 'no_dedup_id' } });",
  ];
  for (const text of fine) assert.equal(unsoundRungReasons(file, text), [], text);
});

test.run();
