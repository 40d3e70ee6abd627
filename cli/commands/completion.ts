// `cashloop completion bash|zsh`: a completion script built from the command tree itself.
//   source <(cashloop completion bash)      # or add it to ~/.bashrc
//   source <(cashloop completion zsh)       # or add it to ~/.zshrc
import type { Command } from 'commander';
import { CliError } from '../settings.ts';

/** Every command path ("", "app", "app create", ...) with the words that may follow it. */
function completionTable(program: Command): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const globalFlags = program.options.map((option) => option.long).filter((flag): flag is string => Boolean(flag));
  const walk = (command: Command, path: string) => {
    const flags = command.options.map((option) => option.long).filter((flag): flag is string => Boolean(flag));
    table.set(path, [...command.commands.map((sub) => sub.name()), ...flags, ...globalFlags, '--help']);
    for (const sub of command.commands) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  return table;
}

/** Flags that take a value, whose next word is not a command. */
function valueFlags(program: Command): string[] {
  const found = new Set<string>();
  const walk = (command: Command) => {
    for (const option of command.options) if (option.long && (option.required || option.optional)) found.add(option.long);
    command.commands.forEach(walk);
  };
  walk(program);
  return [...found];
}

export function bashCompletion(program: Command): string {
  const cases = [...completionTable(program)].map(([path, words]) => `    "${path}") words="${[...new Set(words)].join(' ')}" ;;`).join('\n');
  return `# cashloop bash completion: source <(cashloop completion bash)
_cashloop() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word skip=0 i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      ${valueFlags(program).join('|') || '--none'}) skip=1; continue ;;
      -*) continue ;;
    esac
    path="\${path:+$path }$word"
  done
  local words=""
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _cashloop cashloop
`;
}

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script: source <(cashloop completion bash)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell === 'bash') process.stdout.write(bashCompletion(program));
      else if (shell === 'zsh') process.stdout.write(`# cashloop zsh completion: source <(cashloop completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${bashCompletion(program)}`);
      else throw new CliError(`No completion for ${shell}; use bash or zsh.`, 'invalid_option');
    });
}
