// Preloaded into every process of a test run (test/run.ts puts it in NODE_OPTIONS, so the servers
// and CLIs a file spawns inherit it): WebAssembly runs on V8's baseline compiler only. PGlite is a
// 9 MB WebAssembly module; by default V8 recompiles its hot functions with the optimizing compiler
// in the background, which for a process that lives seconds costs more CPU than it ever saves
// (measured: about 1.5 s of CPU less per test process). Production keeps V8's defaults.
import v8 from 'node:v8';

v8.setFlagsFromString('--liftoff-only');
