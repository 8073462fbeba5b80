import { describe, expect, it } from "vitest";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { otherWorkspace } from "../helpers/workspaces.js";

async function setup() {
  const instance = createTestInstance();
  const server = await startTestServer(instance.services);
  return { instance, server };
}

const patch = (server: TestServer, token: string, json: unknown) => server.request("/api/v1/settings/brand", { method: "PATCH", token, json });

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { level: value };
  return value;
}

describe("brand settings over a real socket", () => {
  it("answers empty settings with nulls and the placeholder guide before anything is set", async () => {
    const { server, instance } = await setup();
    const res = await server.request("/api/v1/settings/brand", { token: instance.token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      brandName: null,
      brandDescription: null,
      brandEmail: null,
      websiteUrl: null,
      emailLanguage: null,
      logoUrl: null,
      brandDesignSystem: {},
      brandDesignMarkdown: "# Brand style guide\n\nNo brand settings yet.\n",
      postalAddress: null,
      timeZone: "UTC",
    });
  });

  it("stores every field, canonicalises the language tag and returns the generated guide", async () => {
    const { server, instance } = await setup();
    const res = await patch(server, instance.token, {
      brandName: "Acme Dental",
      brandDescription: "Family dentistry.",
      brandEmail: "hello@acme.example",
      websiteUrl: "https://acme.example",
      emailLanguage: "de-ch",
      logoUrl: "https://acme.example/logo.png",
      brandDesignSystem: { colors: { primary: "#112233" } },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ brandName: "Acme Dental", emailLanguage: "de-CH", brandDesignSystem: { colors: { primary: "#112233" } } });
    expect(body.brandDesignMarkdown).toContain("# Acme Dental style guide\n");
    expect(body.brandDesignMarkdown).toContain("- Email language: Swiss High German (`de-CH`)\n");
    expect(body.brandDesignMarkdown).toContain("| primary | `#112233` |  |\n");
    expect(await (await server.request("/api/v1/settings/brand", { token: instance.token })).json()).toEqual(body);
  });

  it("changes only the fields sent, and null clears one", async () => {
    const { server, instance } = await setup();
    await patch(server, instance.token, { brandName: "Acme", brandEmail: "hi@acme.example", brandDesignSystem: { voice: "calm" } });
    const body = await (await patch(server, instance.token, { brandEmail: null, websiteUrl: "http://acme.example" })).json();
    expect(body).toMatchObject({ brandName: "Acme", brandEmail: null, websiteUrl: "http://acme.example", brandDesignSystem: { voice: "calm" } });
    const cleared = await (await patch(server, instance.token, { brandDesignSystem: null })).json();
    expect(cleared.brandDesignSystem).toEqual({});
    expect(cleared.brandName).toBe("Acme");
  });

  it("refuses invalid fields with a 400 naming each, and keeps the previous settings", async () => {
    const { server, instance } = await setup();
    await patch(server, instance.token, { brandName: "Acme" });
    const cases: Array<[unknown, string]> = [
      [{ brandEmail: "not-an-email" }, "brandEmail must be a valid email address"],
      [{ websiteUrl: "ftp://acme.example" }, "websiteUrl must be an http:// or https:// URL"],
      [{ logoUrl: "logo.png" }, "logoUrl must be an http:// or https:// URL"],
      [{ emailLanguage: "english please" }, "emailLanguage must be a BCP 47 language tag"],
      [{ brandDesignSystem: ["red"] }, "brandDesignSystem must be an object"],
      [{ brandDesignSystem: nested(9) }, "brandDesignSystem must be nested at most 8 levels deep (got 9)"],
      [{ brandDesignSystem: { notes: "x".repeat(70_000) } }, "brandDesignSystem must be at most 65536 bytes as JSON"],
      [{ brandDesignMarkdown: "# mine" }, "brandDesignMarkdown is not a known field"],
      [{}, "nothing to update"],
      [{ brandName: "Globex", brandEmail: "nope" }, "brandEmail must be a valid email address"],
    ];
    for (const [json, message] of cases) {
      const res = await patch(server, instance.token, json);
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400);
      expect((await res.json()).error).toContain(message);
    }
    expect((await patch(server, instance.token, { brandDesignSystem: nested(8) })).status).toBe(200);
    const now = await (await server.request("/api/v1/settings/brand", { token: instance.token })).json();
    expect(now.brandName).toBe("Acme");
  });

  it("keeps each workspace's settings apart, and lets members update them", async () => {
    const { server, instance } = await setup();
    const member = instance.addUser({ email: "mo@example.com", role: "member" });
    expect((await patch(server, member.token, { brandName: "Acme" })).status).toBe(200);
    const other = otherWorkspace(instance);
    const theirs = await (await server.request("/api/v1/settings/brand", { token: other.token })).json();
    expect(theirs.brandName).toBeNull();
  });
});
