import type { Command } from 'commander';

/**
 * `sas completion bash|zsh|fish`: a completion script written from the
 * command tree itself, so it never falls behind the commands. Install with
 * `sas completion bash > /etc/bash_completion.d/sas` (or `source <(sas completion bash)`),
 * `sas completion zsh > "${fpath[1]}/_sas"`, `sas completion fish > ~/.config/fish/completions/sas.fish`.
 */
export function completionScript(shell: 'bash' | 'zsh' | 'fish', program: Command): string {
  const tree = walk(program, []);
  if (shell === 'fish') return fish(tree);
  if (shell === 'zsh')
    return `#compdef sas\nautoload -U bashcompinit && bashcompinit\n${bash(tree)}`;
  return bash(tree);
}

interface Node {
  path: string[];
  subcommands: string[];
  options: string[];
  description: string;
}

function walk(command: Command, path: string[]): Node[] {
  const node: Node = {
    path,
    subcommands: command.commands.map((child) => child.name()),
    options: [...command.options.flatMap((option) => [option.long, option.short]), '--help'].filter(
      (flag): flag is string => typeof flag === 'string',
    ),
    description: command.description(),
  };
  return [node, ...command.commands.flatMap((child) => walk(child, [...path, child.name()]))];
}

function bash(tree: Node[]): string {
  const cases = tree
    .map(
      (node) =>
        `    "${node.path.join(' ')}") words_="${[...node.subcommands, ...node.options].join(' ')}" ;;`,
    )
    .join('\n');
  return `# sas completion for bash (sas completion bash)
_sas_complete() {
  local cur path_ word i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path_=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    if [[ -z "$path_" ]]; then candidate="$word"; else candidate="$path_ $word"; fi
    case "$candidate" in
${tree.map((node) => `      "${node.path.join(' ')}") path_="$candidate" ;;`).join('\n')}
    esac
  done
  local words_=""
  case "$path_" in
${cases}
  esac
  COMPREPLY=( $(compgen -W "$words_ --json --profile --api-url" -- "$cur") )
}
complete -F _sas_complete sas
`;
}

function fish(tree: Node[]): string {
  const lines = ['# sas completion for fish (sas completion fish)', 'complete -c sas -f'];
  for (const node of tree) {
    const condition =
      node.path.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${node.path.at(-1)}`;
    for (const child of tree.filter(
      (candidate) =>
        candidate.path.length === node.path.length + 1 &&
        candidate.path.slice(0, -1).join(' ') === node.path.join(' '),
    )) {
      lines.push(
        `complete -c sas -n '${condition}' -a ${child.path.at(-1)} -d '${child.description.replace(/'/g, "\\'")}'`,
      );
    }
    for (const option of node.options.filter((flag) => flag.startsWith('--'))) {
      lines.push(`complete -c sas -n '${condition}' -l ${option.slice(2)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
