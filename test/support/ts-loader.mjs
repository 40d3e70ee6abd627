// The TypeScript loader of test files (test/run.ts runs every file with it): a module hook that
// compiles only this repository's .ts/.tsx files with esbuild (the compiler under tsx), cached on
// disk, and leaves every other module to Node. tsx's hooks also resolve and load every package
// module (hundreds of them for the engine and the API), which costs about 0.8 s of every test
// process's start; this one costs about 0.15 s. esbuild compiles with the tsconfig's settings, as
// under tsx, and the servers and CLIs a test spawns still start as production does, with
// `node --import tsx`. `npm run coverage` runs the files with tsx (test/run.ts says why).
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
register('./ts-loader-hooks.mjs', import.meta.url);
