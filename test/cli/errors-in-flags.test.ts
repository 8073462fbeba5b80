import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

describe("CLI errors speak the flags the user typed", () => {
  it("a 400 names the flag, not the API field, and local mode does not say HTTP", async () => {
    const env = cliEnv();
    const radius = await runCli(["leads", "search", "--keywords", "cafe", "--location", "Vaduz", "--radius", "7.5"], { env });
    expect(radius.code).toBe(2);
    expect(radius.stderr).toMatch(/^error: --radius must be an integer/m);
    expect(radius.stderr).not.toMatch(/radiusKm|HTTP/);

    const scope = await runCli(["keys", "create", "--name", "x", "--scope", "nope"], { env });
    expect(scope.code).toBe(2);
    expect(scope.stderr).toMatch(/^error: --scope must be one of "campaigns:trigger"/m);

    const website = await runCli(["brand", "set", "--website", "not a url"], { env });
    expect(website.code).toBe(2);
    expect(website.stderr).toMatch(/^error: --website /m);
    expect(website.stderr).not.toMatch(/websiteUrl/);

    const email = await runCli(["contacts", "add", "--email", "nope", "--name", "N"], { env });
    expect(email.stderr).toMatch(/^error: --email must be a valid email address/m);
  });

  it("a body read from --body-file and the sources of --source are named by their flags", async () => {
    const env = cliEnv();
    const dir = tempDir();
    const body = join(dir, "body.md");
    writeFileSync(body, "Hello {{ contact.nme }}");
    const create = await runCli(["campaigns", "create", "--name", "x", "--subject", "s", "--body-file", body], { env });
    expect(create.code).toBe(2);
    expect(create.stderr).toMatch(/^error: --body-file uses an unknown variable contact\.nme/m);
    expect(create.stderr).not.toMatch(/bodyMarkdown|invalid body/);

    const source = await runCli(["leads", "search", "--keywords", "cafe", "--lat", "47.14", "--lng", "9.52", "--source", "google"], { env });
    expect(source.code).toBe(2);
    expect(source.stderr).toMatch(/^error: --source: "google" is not configured on this server/m);
    expect(source.stderr).not.toMatch(/sources\[0\]/);
  });

  it("against a server the status is still shown, with the flag", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const out = await runCli(["--base-url", server.url, "--token", instance.token, "leads", "search", "--keywords", "cafe", "--location", "Vaduz", "--radius", "500"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error \(HTTP 400\): --radius must be at most 100/m);
  });

  it("a misspelt flag or command gets the nearest one, even behind a missing required option", async () => {
    const keyword = await runCli(["leads", "search", "--keyword", "cafe", "--location", "Vaduz"]);
    expect(keyword.code).toBe(2);
    expect(keyword.stderr).toMatch(/required option '--keywords <text>' not specified/);
    expect(keyword.stderr).toContain("(--keyword is not an option: did you mean --keywords?)");
    const limit = await runCli(["contacts", "list", "--limt", "5"]);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/Did you mean --limit\?/);
    const command = await runCli(["leads", "serch"]);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/Did you mean search\?/);
  });
});
