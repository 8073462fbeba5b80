import { describe, expect, it } from "vitest";
import { startDnsServer } from "../helpers/dns-server.js";
import { createTestInstance } from "../helpers/instance.js";
import { readNdjson, startTestServer } from "../helpers/server.js";

/** The probe off: DNS alone decides (null MX → undeliverable, a mail domain → unknown). */
async function setup() {
  const dns = await startDnsServer({ mx: { "gone.test": [{ exchange: ".", priority: 0 }], "fine.test": [{ exchange: "mx.fine.test", priority: 10 }] } });
  const t = createTestInstance({ config: { dnsServers: [dns.address], dnsTimeoutMs: 300, dnsTries: 1 } });
  const server = await startTestServer(t.services);
  const verify = (json: unknown, headers: Record<string, string> = {}) => server.request("/api/v1/contacts/verify", { method: "POST", token: t.token, json, headers });
  const add = (email: string) => t.services.contacts.add(t.teamId, { email, name: email.split("@")[0]! }).id;
  return { t, server, verify, add };
}

describe("POST /api/v1/contacts/verify", () => {
  it("verifies the listed contacts and answers the tally; the list filters by verification", async () => {
    const { server, verify, add, t } = await setup();
    const gone = add("a@gone.test");
    const fine = add("b@fine.test");
    add("c@fine.test");
    const res = await verify({ contactIds: [gone, fine] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ checked: 2, byStatus: { deliverable: 0, undeliverable: 1, risky: 0, unknown: 1 } });
    const shown = await (await server.request(`/api/v1/contacts/${gone}`, { token: t.token })).json();
    expect(shown.contact.verification).toMatchObject({ status: "undeliverable", checks: { syntax: true, mx: false, smtp: "skipped" }, checkedAt: "2026-11-22T10:00:00.000Z" });
    const list = await (await server.request("/api/v1/contacts?verification=undeliverable,risky", { token: t.token })).json();
    expect(list.contacts.map((c: { id: string }) => c.id)).toEqual([gone]);
    const bad = await server.request("/api/v1/contacts?verification=bogus", { token: t.token });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("verification");
  });

  it("streams progress lines and one complete line with Accept: application/x-ndjson", async () => {
    const { verify, add } = await setup();
    for (let i = 0; i < 30; i++) add(`p${i}@fine.test`);
    const res = await verify({ all: true }, { accept: "application/x-ndjson" });
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = await readNdjson(res);
    expect(lines.at(-1)).toEqual({ type: "complete", data: { checked: 30, byStatus: { deliverable: 0, undeliverable: 0, risky: 0, unknown: 30 } } });
    const progress = lines.filter((l) => l.type === "progress");
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ data: { total: 30 } });
  });

  it("an empty body is a 400 naming the fields; both fields too", async () => {
    const { verify, add } = await setup();
    for (const body of [{}, { all: true, contactIds: [add("x@fine.test")] }]) {
      const res = await verify(body);
      expect(res.status).toBe(400);
      const text = JSON.stringify(await res.json());
      expect(text).toContain("contactIds");
      expect(text).toContain("all");
    }
    const none = await verify(undefined);
    expect(none.status).toBe(400);
  });

  it("unknown and other workspaces' ids are the same 404, before any stream starts", async () => {
    const { verify, add, t } = await setup();
    const mine = add("m@fine.test");
    const otherTeam = t.services.identity.createTeam({ name: "Other", ownerId: t.userId, plan: "self-hosted" });
    const foreign = t.services.contacts.add(otherTeam.id, { email: "f@fine.test", name: "F" }).id;
    const unknown = await verify({ contactIds: [mine, "ct_AAAAAAAAAAAAAAAA"] }, { accept: "application/x-ndjson" });
    const other = await verify({ contactIds: [mine, foreign] });
    expect(unknown.status).toBe(404);
    expect(other.status).toBe(404);
    const [a, b] = [await unknown.json(), await other.json()];
    expect(a.error).toBe("contact ct_AAAAAAAAAAAAAAAA not found");
    expect(b.error).toBe(`contact ${foreign} not found`);
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    // Nothing was verified, not even the caller's own contact.
    expect(t.services.contacts.get(t.teamId, mine).verification).toBeNull();
  });
});
