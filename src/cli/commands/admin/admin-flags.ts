import { Option } from "commander";

/**
 * The flags several admin verbs share (members, users, teams, tokens), defined once so
 * each reads the same in every --help. A new Option each call: commander keeps an option
 * object per command.
 */

/** `--team <slug>`: the workspace the verb acts on. */
export function teamSlugFlag(): Option {
  return new Option("--team <slug>", "workspace slug").makeOptionMandatory();
}

/** `--email <email>`: the user the verb acts on. */
export function userEmailFlag(): Option {
  return new Option("--email <email>", "the user's email").makeOptionMandatory();
}
