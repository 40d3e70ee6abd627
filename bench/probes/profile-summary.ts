// Summarises a V8 .cpuprofile: self time by package or file and by function, and inclusive time
// by package or file (each sample counted once per package on its stack).
//   node --import tsx bench/probes/profile-summary.ts FILE.cpuprofile [rows]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const [file, rowsArgument] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts FILE.cpuprofile [rows]');
const rows = Number(rowsArgument ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

/** A package (node_modules/<name>), a node: module, a repository file, or a V8 pseudo-frame. */
function place(node: ProfileNode): string {
  const url = node.callFrame.url;
  if (!url) return node.callFrame.functionName || '(native)';
  const dependency = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1];
  return url.startsWith('node:') ? url : url.replace(/^.*?\/(engine|api|bench|cli|test)\//, '$1/');
}

const selfByPlace = new Map<string, number>();
const selfByFunction = new Map<string, number>();
const inclusiveByPlace = new Map<string, number>();
const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);
let total = 0;
profile.samples.forEach((sampleId, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  total += delta;
  const node = nodes.get(sampleId)!;
  add(selfByPlace, place(node), delta);
  add(selfByFunction, `${node.callFrame.functionName || '(anonymous)'} ${place(node)}:${node.callFrame.lineNumber}`, delta);
  const seen = new Set<string>();
  for (let id: number | undefined = sampleId; id !== undefined; id = parents.get(id)) {
    const name = place(nodes.get(id)!);
    if (!seen.has(name)) add(inclusiveByPlace, name, delta);
    seen.add(name);
  }
});

function print(title: string, map: Map<string, number>): void {
  console.log(`\n${title}`);
  for (const [name, time] of [...map].sort((left, right) => right[1] - left[1]).slice(0, rows)) {
    console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
}

console.log(`${(total / 1000).toFixed(0)} ms sampled`);
print('Self time by package or file', selfByPlace);
print('Self time by function', selfByFunction);
print('Inclusive time by package or file', inclusiveByPlace);
