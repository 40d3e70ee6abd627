// The edges stay thin: routes reach the engine only through its services. The route context's
// type (EdgeEngine) has no database or command runner; this test also refuses the ways around it
// (a cast, the services' core, a store module imported into a route).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

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

test.run();
