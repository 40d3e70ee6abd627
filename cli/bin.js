#!/usr/bin/env node
// The `cashloop` command: registers tsx so the TypeScript CLI runs as is, then starts it.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('./main.ts');
process.exitCode = await runCli(process.argv.slice(2));
