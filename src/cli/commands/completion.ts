import { Argument, type Command } from "commander";
import type { CommandContext } from "../context.js";
import { defineVerb } from "./shared.js";

/** One node of the command tree as the scripts need it: its path, sub-commands and flags. */
interface Node {
  path: string;
  subcommands: string[];
  flags: string[];
}

function walk(command: Command, path: string[], inherited: string[], out: Node[]): void {
  const own = command.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => Boolean(f));
  const flags = [...new Set([...inherited, ...own, "--help"])];
  const subs = command.commands.filter((c) => c.name() !== "help");
  out.push({ path: path.join(" "), subcommands: subs.map((c) => c.name()), flags });
  // The root's flags (but --version) are global: every command takes them.
  const passed = path.length === 0 ? own.filter((f) => f !== "-V" && f !== "--version") : inherited;
  for (const sub of subs) walk(sub, [...path, sub.name()], passed, out);
}

/** Single-quoted for a shell: the words are command and flag names, but be safe. */
const quote = (words: readonly string[]) => `'${words.join(" ").replace(/'/g, "'\\''")}'`;

/**
 * bash (and zsh through bashcompinit): the words typed so far are walked down the command
 * tree, skipping flags, then the sub-commands or, after a dash, the flags of the command
 * reached are offered. The tree is written into the script, so completing runs no node.
 */
function bashScript(nodes: readonly Node[]): string {
  const subs = nodes.map((n) => `    ${quote([n.path])}) echo ${quote(n.subcommands)} ;;`).join("\n");
  const flags = nodes.map((n) => `    ${quote([n.path])}) echo ${quote(n.flags)} ;;`).join("\n");
  return `# outreach completion (bash). Install: outreach completion bash > ~/.local/share/bash-completion/completions/outreach
_outreach_subcommands() {
  case "$1" in
${subs}
  esac
}
_outreach_flags() {
  case "$1" in
${flags}
  esac
}
_outreach() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ $word == -* ]] && continue
    case " $(_outreach_subcommands "$path") " in
      *" $word "*) path="\${path:+$path }$word" ;;
    esac
  done
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_outreach_flags "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_outreach_subcommands "$path")" -- "$cur"))
  fi
}
complete -o default -F _outreach outreach
`;
}

function zshScript(nodes: readonly Node[]): string {
  return `# outreach completion (zsh). Install: outreach completion zsh > "\${fpath[1]}/_outreach", or eval "$(outreach completion zsh)" in ~/.zshrc
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes).split("\n").slice(1).join("\n")}`;
}

function fishScript(nodes: readonly Node[]): string {
  const cases = (pick: (n: Node) => string[]) =>
    nodes.map((n) => `        case ${quote([n.path])}\n            printf '%s\\n' ${pick(n).map((w) => quote([w])).join(" ")}`).join("\n");
  return `# outreach completion (fish). Install: outreach completion fish > ~/.config/fish/completions/outreach.fish
function __outreach_subcommands
    switch "$argv[1]"
${cases((n) => n.subcommands)}
    end
end
function __outreach_flags
    switch "$argv[1]"
${cases((n) => n.flags)}
    end
end
function __outreach_path
    set -l path ""
    for word in (commandline -opc)[2..-1]
        string match -q -- '-*' $word; and continue
        if contains -- $word (__outreach_subcommands "$path")
            set path (string trim -- "$path $word")
        end
    end
    echo $path
end
complete -c outreach -f -n 'not string match -q -- "-*" (commandline -ct)' -a '(__outreach_subcommands (__outreach_path))'
complete -c outreach -f -n 'string match -q -- "-*" (commandline -ct)' -a '(__outreach_flags (__outreach_path))'
`;
}

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/** `outreach completion bash|zsh|fish`: a completion script for the shell, built from the command tree. */
export function registerCompletion(program: Command, ctx: CommandContext): void {
  defineVerb(
    program,
    {
      name: "completion",
      description: "print a shell completion script (commands and flags)",
      examples: [
        "outreach completion bash > ~/.local/share/bash-completion/completions/outreach",
        'eval "$(outreach completion zsh)"',
        "outreach completion fish > ~/.config/fish/completions/outreach.fish",
      ],
    },
    (command) => command.addArgument(new Argument("<shell>", "the shell").choices(Object.keys(SHELLS))),
  ).action((shell: keyof typeof SHELLS) => runCompletion(ctx, program, { shell }));
}

export interface CompletionOptions {
  shell: keyof typeof SHELLS;
}

/** The script for the shell, from the whole command tree (`program`). */
export function runCompletion(ctx: CommandContext, program: Command, { shell }: CompletionOptions): void {
  const nodes: Node[] = [];
  walk(program, [], [], nodes);
  ctx.io.stdout.write(SHELLS[shell](nodes));
}
