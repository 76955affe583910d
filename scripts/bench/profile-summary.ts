// Self time of a V8 CPU profile (`node --cpu-prof`, BENCH_CPU_PROF) by package, and its top
// functions: `node --import tsx scripts/bench/profile-summary.ts <file.cpuprofile> [top=25] [filter]`.
// A package is the folder under node_modules (scoped: `@scope/name`); the service's own files
// by their folder under server/ or db/; V8's own nodes ((garbage collector), (idle), (program))
// by name; Node's built-in modules as `node:internal`. With a filter (a substring of a package
// or a function's location), the top list holds only the matching functions.
import fs from 'node:fs';

const [file, topArg, filter] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary.ts <file.cpuprofile> [top] [filter]');
  process.exit(2);
}
interface Frame {
  functionName: string;
  url?: string;
  lineNumber: number;
}
interface Profile {
  nodes: { id: number; callFrame: Frame }[];
  samples: number[];
  timeDeltas: number[];
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const top = Number(topArg ?? 25);

/** The bucket a call frame's url belongs to. */
function bucket(frame: Frame): string {
  const url = frame.url ?? '';
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const own = /\/(server|db|scripts|test)\/(([^/]+)\/)?/.exec(url);
  if (own) return `${own[1]}/${own[3] ?? ''}`;
  return url.includes('.next/') ? 'next (compiled)' : url.replace(/^file:\/\//, '');
}

// Each sample's time is the gap to the next one; a node's self time is the sum over its samples.
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
const { samples, timeDeltas } = profile;
for (let i = 0; i < samples.length; i++) {
  const dt = timeDeltas[i + 1] ?? 0;
  self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + dt);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);
const busy = total - idle;

const packages = new Map<string, number>();
const functions = new Map<string, number>();
for (const [id, t] of self) {
  const frame = byId.get(id)!.callFrame;
  if (frame.functionName === '(idle)') continue;
  const pkg = bucket(frame);
  packages.set(pkg, (packages.get(pkg) ?? 0) + t);
  const name = `${frame.functionName || '(anonymous)'} ${pkg} ${(frame.url ?? '').split('/').slice(-1)[0]}:${frame.lineNumber + 1}`;
  if (!filter || name.includes(filter)) functions.set(name, (functions.get(name) ?? 0) + t);
}
const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (${((100 * idle) / total).toFixed(1)} % idle); shares of the busy time`);
console.log('\nby package:');
for (const [pkg, t] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${pct(t)}  ${pkg}`);
console.log(`\ntop functions${filter ? ` matching '${filter}'` : ''}:`);
for (const [name, t] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${name}`);
