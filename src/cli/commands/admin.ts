import { Option, type Command } from "commander";
import { resolve } from "node:path";
import { Role } from "../../core/schemas/team.js";
import { toUser, toWorkspace } from "../../services/identity.js";
import { backupDatabase } from "../../store/db.js";
import { addKeyToKeyFile, KEY_FILE_NAME, loadKeyring, retireOldKeys } from "../../core/crypto.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { CommandContext } from "../context.js";
import { CliError, EXIT, UsageError } from "../exit-codes.js";
import { printJson, printRows, timeCell } from "../output.js";
import { intFlag, limitFlag } from "../flags.js";
import { example, withJson } from "./shared.js";

/**
 * Self-hosting administration, acting on the data directory directly (like
 * `pocketbase superuser`): these are the only commands besides `init` that open the store.
 */
export function registerAdmin(program: Command, ctx: CommandContext): void {
  const admin = program.command("admin").description("manage a data directory directly: users, workspaces, plans, tokens, backups");

  const users = admin.command("users").description("manage users");
  const usersCreate = withJson(
    users
      .command("create")
      .description("create a user and print their first personal access token")
      .requiredOption("--email <email>", "email address")
      .requiredOption("--name <name>", "display name"),
  ).action((options: { email: string; name: string; json?: boolean }) => {
    const identity = ctx.openInstance().services.identity;
    const user = identity.createUser({ name: options.name, email: options.email });
    const token = identity.issuePersonalToken(user.id, "admin");
    if (options.json) return printJson(ctx.io, { user: toUser(user), token: token.raw });
    ctx.info(`Created ${user.name} <${user.email}> (${user.id}). Their token, shown once:`);
    ctx.io.stdout.write(token.raw + "\n");
  });
  example(usersCreate, "outreach admin users create --email bob@example.com --name Bob");
  const usersList = withJson(users.command("list").description("list every user and how many workspaces each is in")).action((options: { json?: boolean }) => {
    const rows = ctx.openInstance().services.identity.listUsers();
    if (options.json) return printJson(ctx.io, { users: rows });
    const now = ctx.clock.now();
    printRows(ctx.io, ctx.env, rows, [
      { header: "EMAIL", value: (u) => u.email },
      { header: "NAME", value: (u) => u.name },
      { header: "WORKSPACES", value: (u) => u.workspaces },
      { header: "CREATED", value: (u) => timeCell(ctx.io, now, u.createdAt) },
      { header: "ID", value: (u) => u.id },
    ]);
  });
  example(usersList, "outreach admin users list", "outreach admin users list --json");
  const usersRm = withJson(
    users
      .command("rm")
      .description("remove a user with their memberships and tokens (not the only owner of a workspace others are in, nor the only member of one)")
      .requiredOption("--email <email>", "the user's email")
      .option("--with-workspaces", "also remove the workspaces the user is the only member of, with everything they hold"),
  ).action((options: { email: string; withWorkspaces?: boolean; json?: boolean }) => {
    const { user, removedWorkspaces } = ctx.openInstance().services.identity.removeUser(options.email, { withWorkspaces: options.withWorkspaces });
    if (options.json) return printJson(ctx.io, { user: toUser(user), removedWorkspaces });
    ctx.info(`Removed ${user.email} (${user.id}), their memberships and tokens.`);
    if (removedWorkspaces.length) ctx.info(`Removed the workspace${removedWorkspaces.length === 1 ? "" : "s"} they were alone in, with all it held: ${removedWorkspaces.join(", ")}.`);
  });
  example(usersRm, "outreach admin users rm --email bob@example.com", "outreach admin users rm --email bob@example.com --with-workspaces");

  const teams = admin.command("teams").description("manage workspaces");
  const teamsCreate = withJson(
    teams
      .command("create")
      .description("create a workspace owned by an existing user")
      .requiredOption("--name <name>", "workspace name")
      .requiredOption("--owner <email>", "email of the owner")
      .option("--plan <plan>", "plan (free, pro, self-hosted)", "self-hosted"),
  ).action((options: { name: string; owner: string; plan: string; json?: boolean }) => {
    const identity = ctx.openInstance().services.identity;
    const owner = identity.requireUserByEmail(options.owner);
    const team = identity.createTeam({ name: options.name, ownerId: owner.id, plan: options.plan });
    if (options.json) return printJson(ctx.io, toWorkspace(team, "owner"));
    ctx.info(`Created workspace "${team.name}" (${team.slug}, ${team.id}), plan ${team.plan}, owned by ${owner.email}.`);
    ctx.io.stdout.write(team.id + "\n");
  });
  example(teamsCreate, "outreach admin teams create --name Acme --owner ada@example.com --plan pro");

  const teamsList = withJson(teams.command("list").description("list every workspace with its plan and member count")).action((options: { json?: boolean }) => {
    const rows = ctx.openInstance().services.identity.listTeams();
    if (options.json) return printJson(ctx.io, { teams: rows });
    const now = ctx.clock.now();
    printRows(ctx.io, ctx.env, rows, [
      { header: "SLUG", value: (t) => t.slug },
      { header: "NAME", value: (t) => t.name },
      { header: "PLAN", value: (t) => t.plan },
      { header: "MEMBERS", value: (t) => t.members },
      { header: "CREATED", value: (t) => timeCell(ctx.io, now, t.createdAt) },
      { header: "ID", value: (t) => t.id },
    ]);
  });
  example(teamsList, "outreach admin teams list");
  const teamsRename = withJson(
    teams
      .command("rename")
      .description("rename a workspace; its slug follows the name unless --slug is given")
      .requiredOption("--team <slug>", "workspace slug")
      .requiredOption("--name <name>", "the new name")
      .option("--slug <slug>", "the new slug (lowercase letters, digits, dashes)"),
  ).action((options: { team: string; name: string; slug?: string; json?: boolean }) => {
    const team = ctx.openInstance().services.identity.renameTeam({ teamSlug: options.team, name: options.name, slug: options.slug });
    if (options.json) return printJson(ctx.io, { id: team.id, name: team.name, slug: team.slug, plan: team.plan });
    ctx.info(`Workspace ${options.team} is now "${team.name}" (${team.slug}).`);
  });
  example(teamsRename, 'outreach admin teams rename --team personal --name "Acme Dental"', "outreach admin teams rename --team personal --name Acme --slug acme");

  const setPlan = teams
    .command("set-plan")
    .description("change a workspace's plan and, optionally, override its limits")
    .requiredOption("--team <slug>", "workspace slug")
    .requiredOption("--plan <plan>", "plan name")
    .option("--daily-searches <n>", "daily lead searches for this workspace (a number or 'unlimited')")
    .option("--max-contacts <n>", "contact limit for this workspace (a number or 'unlimited')")
    .action((options: { team: string; plan: string; dailySearches?: string; maxContacts?: string }) => {
      const services = ctx.openInstance().services;
      const team = services.identity.setPlan({
        teamSlug: options.team,
        plan: options.plan,
        dailySearches: limitFlag("--daily-searches", options.dailySearches),
        maxContacts: limitFlag("--max-contacts", options.maxContacts),
      });
      const limits = services.plans.limitsForTeam(team.id);
      ctx.info(
        `${team.slug}: plan ${limits.plan}, daily searches ${limits.dailySearches ?? "unlimited"}, contacts ${limits.maxContacts ?? "unlimited"}, custom sender ${limits.customSender ? "yes" : "no"}.`,
      );
    });
  example(setPlan, "outreach admin teams set-plan --team acme --plan pro", "outreach admin teams set-plan --team acme --plan free --daily-searches 100");

  const members = admin.command("members").description("manage workspace members");
  const membersAdd = members
    .command("add")
    .description("add a user to a workspace (or change their role)")
    .requiredOption("--team <slug>", "workspace slug")
    .requiredOption("--email <email>", "the user's email")
    .addOption(new Option("--role <role>", Role.options.join(", ")).choices(Role.options).makeOptionMandatory())
    .action((options: { team: string; email: string; role: Role }) => {
      const { team, user } = ctx.openInstance().services.identity.addMember({ teamSlug: options.team, email: options.email, role: options.role });
      ctx.info(`${user.email} is now ${options.role} of ${team.slug}.`);
    });
  example(membersAdd, "outreach admin members add --team acme --email bob@example.com --role admin");
  const membersList = withJson(members.command("list").description("list a workspace's members and their roles").requiredOption("--team <slug>", "workspace slug")).action(
    (options: { team: string; json?: boolean }) => {
      const rows = ctx.openInstance().services.identity.listMembers(options.team);
      if (options.json) return printJson(ctx.io, { members: rows });
      const now = ctx.clock.now();
      printRows(ctx.io, ctx.env, rows, [
        { header: "EMAIL", value: (m) => m.email },
        { header: "NAME", value: (m) => m.name },
        { header: "ROLE", value: (m) => m.role },
        { header: "JOINED", value: (m) => timeCell(ctx.io, now, m.joinedAt) },
      ]);
    },
  );
  example(membersList, "outreach admin members list --team acme");
  const membersRm = withJson(
    members
      .command("rm")
      .description("take a user out of a workspace (the user and their other workspaces stay; the last owner cannot leave)")
      .requiredOption("--team <slug>", "workspace slug")
      .requiredOption("--email <email>", "the user's email"),
  ).action((options: { team: string; email: string; json?: boolean }) => {
    const { team, user } = ctx.openInstance().services.identity.removeMember({ teamSlug: options.team, email: options.email });
    if (options.json) return printJson(ctx.io, { team: team.slug, user: toUser(user) });
    ctx.info(`${user.email} is no longer a member of ${team.slug}.`);
  });
  example(membersRm, "outreach admin members rm --team acme --email bob@example.com");

  const plans = admin.command("plans").description("the plans and their default limits");
  const plansList = withJson(plans.command("list").description("list plans and their limits")).action((options: { json?: boolean }) => {
    const rows = ctx.openInstance().services.plans.all();
    if (options.json) return printJson(ctx.io, rows);
    printRows(ctx.io, ctx.env, rows, [
      { header: "PLAN", value: (p) => p.name },
      { header: "DAILY SEARCHES", value: (p) => p.dailySearches ?? "unlimited" },
      { header: "CONTACTS", value: (p) => p.maxContacts ?? "unlimited" },
      { header: "CUSTOM SENDER", value: (p) => (p.customSender ? "yes" : "no") },
      { header: "DAILY SENDS", value: (p) => p.dailySends ?? "unlimited" },
    ]);
  });
  example(plansList, "outreach admin plans list");
  const plansSet = plans
    .command("set")
    .description("create a plan or change its default limits")
    .argument("<plan>", "plan name")
    .option("--daily-searches <n>", "daily lead searches (a number or 'unlimited')")
    .option("--max-contacts <n>", "contacts per workspace (a number or 'unlimited')")
    .addOption(new Option("--custom-sender <yes|no>", "whether workspaces on this plan may add sending domains").choices(["yes", "no"]))
    .option("--daily-sends <n>", "messages a workspace may send per UTC day (a number or 'unlimited')")
    .action((name: string, options: { dailySearches?: string; maxContacts?: string; customSender?: "yes" | "no"; dailySends?: string }) => {
      const plan = ctx.openInstance().services.plans.set(name, {
        dailySearches: limitFlag("--daily-searches", options.dailySearches),
        maxContacts: limitFlag("--max-contacts", options.maxContacts),
        customSender: options.customSender === undefined ? undefined : options.customSender === "yes",
        dailySends: limitFlag("--daily-sends", options.dailySends),
      });
      ctx.info(
        `plan ${plan.name}: daily searches ${plan.dailySearches ?? "unlimited"}, contacts ${plan.maxContacts ?? "unlimited"}, ` +
          `custom sender ${plan.customSender ? "yes" : "no"}, daily sends ${plan.dailySends ?? "unlimited"}.`,
      );
    });
  example(plansSet, "outreach admin plans set free --daily-searches 50", "outreach admin plans set agency --daily-searches 2000 --max-contacts 200000 --custom-sender yes --daily-sends 20000");

  const tokens = admin.command("tokens").description("personal access tokens");
  const tokensCreate = withJson(
    tokens.command("create").description("issue a new personal access token for a user").requiredOption("--email <email>", "the user's email").option("--name <name>", "a label for the token", "admin"),
  ).action((options: { email: string; name: string; json?: boolean }) => {
    const identity = ctx.openInstance().services.identity;
    const user = identity.requireUserByEmail(options.email);
    const token = identity.issuePersonalToken(user.id, options.name);
    if (options.json) return printJson(ctx.io, { user: toUser(user), token: token.raw });
    ctx.info(`New token for ${user.email} (shown once):`);
    ctx.io.stdout.write(token.raw + "\n");
  });
  example(tokensCreate, "outreach admin tokens create --email ada@example.com");

  const backup = admin
    .command("backup")
    .description("write a consistent copy of the database (safe while the server runs)")
    .argument("<file>", "where to write the copy")
    .action(async (file: string) => {
      const instance = ctx.openInstance();
      const destination = resolve(file);
      await backupDatabase(instance.services.deps.db, destination);
      ctx.info(`Backed up ${instance.dataDir} to ${destination}. Keep the key file (${instance.dataDir}/secret.key) or OUTREACH_SECRET_KEY too: without it encrypted fields cannot be read.`);
    });
  example(backup, "outreach admin backup /backups/outreach-$(date +%F).db");

  const keys = admin.command("keys").description("the data directory's encryption keys");
  const rotate = keys
    .command("rotate")
    .description("re-encrypt every encrypted field under a new key, in batches, while a server may keep serving")
    .option("--batch-size <n>", "rows per transaction", "200")
    .option("--keep-old", "keep the old key in the key file after re-encrypting (default: retire it)")
    .action(async (options: { batchSize: string; keepOld?: boolean }) => {
      const batchSize = intFlag("--batch-size", options.batchSize, { min: 1, max: 10_000 })!;
      const instance = ctx.openInstance();
      const services = instance.services;
      const fromEnv = Boolean(ctx.env.OUTREACH_SECRET_KEY);
      if (fromEnv) {
        // The operator rotates: new key in OUTREACH_SECRET_KEY, old in OUTREACH_SECRET_KEY_PREVIOUS.
        ctx.info(`Re-encrypting under OUTREACH_SECRET_KEY (key ${services.keys.get().currentId}); OUTREACH_SECRET_KEY_PREVIOUS must hold the old key.`);
      } else {
        const file = join(instance.dataDir, KEY_FILE_NAME);
        if (!existsSync(file)) throw new UsageError(`no key file at ${file}`);
        const loaded = loadKeyring(instance.dataDir, {});
        // A rotation that was interrupted left several keys: finish it under its new key.
        if (loaded.keyIds.length > 1) ctx.info(`Resuming the rotation to key ${loaded.currentId}.`);
        else ctx.info(`Added key ${addKeyToKeyFile(instance.dataDir, services.deps.clock.now())}; a running server picks it up for new writes.`);
        services.keys.replace(loadKeyring(instance.dataDir, {}));
      }
      const before = services.keyRotation.pendingCounts(services.keys.get().currentId);
      const total = Object.values(before).reduce((a, b) => a + b, 0);
      ctx.info(`${total} row${total === 1 ? "" : "s"} to re-encrypt (${Object.entries(before).map(([k, v]) => `${k}: ${v}`).join(", ")}).`);
      let lastReport = 0;
      const result = await services.keyRotation.reencryptAll(() => services.keys.get(), {
        batchSize,
        onProgress: (p) => {
          if (p.remaining === 0 || p.done - lastReport >= 10_000) {
            lastReport = p.done;
            ctx.info(`${p.set}: ${p.done} re-encrypted, ${p.remaining} left`);
          }
        },
      });
      if (result.remaining > 0) {
        throw new CliError(`${result.remaining} rows are still under an old key; the old key was kept. Run the command again.`, EXIT.error);
      }
      if (fromEnv) {
        ctx.info(`Done: every row is under key ${result.keyId}. Remove OUTREACH_SECRET_KEY_PREVIOUS from the environment.`);
      } else if (options.keepOld) {
        ctx.info(`Done: every row is under key ${result.keyId}; the old key was kept (--keep-old).`);
      } else {
        const retired = retireOldKeys(instance.dataDir);
        ctx.info(`Done: every row is under key ${result.keyId}; retired ${retired.join(", ") || "nothing"}. Back up the key file now: older backups need the old key.`);
      }
      ctx.io.stdout.write(result.keyId + "\n");
    });
  example(rotate, "outreach admin keys rotate", "OUTREACH_SECRET_KEY=$NEW OUTREACH_SECRET_KEY_PREVIOUS=$OLD outreach admin keys rotate");
}
