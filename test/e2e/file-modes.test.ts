import { chmodSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv } from "../helpers/cli.js";
import { tempDir } from "../helpers/data-dir.js";
import { runBin, spawnServe } from "../helpers/serve-bin.js";

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

async function addContact(url: string, token: string, email: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/contacts/add`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ email, name: "Someone" }),
  });
  return res.status;
}

describe("files holding personal data are private to the owner", () => {
  it("creates outreach.db, -wal and -shm 0600 (not the 0644 a 022 umask gives), like the key file, and backups too", async () => {
    const env = cliEnv();
    const dataDir = join(tempDir(), "data");
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
    expect(init.code).toBe(0);
    const serve = await spawnServe(dataDir, env);
    expect(await addContact(serve.url, JSON.parse(init.stdout).token, "bob@example.com")).toBe(200);
    // While the server runs, all three files exist.
    for (const name of ["outreach.db", "outreach.db-wal", "outreach.db-shm", "secret.key"]) expect([name, mode(join(dataDir, name))]).toEqual([name, "600"]);
    expect(mode(dataDir)).toBe("700");

    const backup = join(tempDir(), "backups", "copy.db");
    expect((await runBin(["admin", "backup", backup, "--data-dir", dataDir], env)).code).toBe(0);
    expect(mode(backup)).toBe("600");
    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);
  });

  it("tightens a database an older version left 0644 when it opens it", async () => {
    const env = cliEnv();
    const dataDir = tempDir();
    const init = await runBin(["init", "--data-dir", dataDir, "--name", "Ada", "--email", "ada@example.com", "--team", "Acme", "--json"], env);
    expect(init.code).toBe(0);
    const db = join(dataDir, "outreach.db");
    chmodSync(db, 0o644);
    for (const suffix of ["-wal", "-shm"]) if (existsSync(db + suffix)) chmodSync(db + suffix, 0o644);
    const serve = await spawnServe(dataDir, env);
    expect(await addContact(serve.url, JSON.parse(init.stdout).token, "carol@example.com")).toBe(200);
    for (const path of [db, db + "-wal", db + "-shm"]) expect([path, mode(path)]).toEqual([path, "600"]);
    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);
  });
});
