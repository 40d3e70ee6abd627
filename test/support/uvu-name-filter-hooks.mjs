// The module hook of uvu-name-filter.mjs: filters uvu's test list by CASHLOOP_TEST_NAME.
const original = 'let hook, test, arr = only.length ? only : tests;\n\tlet num=0, errors=\'\', total=arr.length;';
const filtered = `let hook, test, arr = only.length ? only : tests;
	{ const kept = arr.filter((entry) => entry.name.includes(process.env.CASHLOOP_TEST_NAME)); ctx.skips += arr.length - kept.length; arr = kept; }
	let num=0, errors='', total=arr.length;`;

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!/\/uvu\/dist\/index\.mjs$/.test(url)) return result;
  const source = String(result.source);
  if (!source.includes(original)) throw new Error('test/support/uvu-name-filter-hooks.mjs: uvu changed; -t cannot filter its tests');
  return { ...result, source: source.replace(original, filtered) };
}
