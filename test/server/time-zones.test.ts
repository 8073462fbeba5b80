import { describe, expect, it } from "vitest";
import { parseImport } from "../../src/cli/contact-import.js";
import { createTestInstance } from "../helpers/instance.js";
import { startTestServer } from "../helpers/server.js";

describe("time zones of contacts and of the brand (send windows)", () => {
  it("a contact's timeZone is set on create, changed and cleared by PATCH, and must be an IANA name", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const token = instance.token;
    const created = await server.request("/api/v1/contacts/add", { method: "POST", token, json: { email: "lin@example.com", name: "Lin", timeZone: "Europe/Zurich" } });
    expect(created.status).toBe(200);
    const { contact } = (await created.json()) as { contact: { id: string } };
    const read = async () => ((await (await server.request(`/api/v1/contacts/${contact.id}`, { token })).json()) as { contact: { timeZone: string | null } }).contact;
    expect((await read()).timeZone).toBe("Europe/Zurich");

    const bad = await server.request(`/api/v1/contacts/${contact.id}`, { method: "PATCH", token, json: { timeZone: "Europe/Atlantis" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("timeZone must be an IANA time zone name");
    expect((await read()).timeZone).toBe("Europe/Zurich");

    const moved = await server.request(`/api/v1/contacts/${contact.id}`, { method: "PATCH", token, json: { timeZone: "America/New_York" } });
    expect(((await moved.json()) as { contact: { timeZone: string } }).contact.timeZone).toBe("America/New_York");
    await server.request(`/api/v1/contacts/${contact.id}`, { method: "PATCH", token, json: { timeZone: null } });
    expect((await read()).timeZone).toBeNull();
  });

  it("the brand's timeZone defaults to UTC and takes only IANA names", async () => {
    const instance = createTestInstance();
    const server = await startTestServer(instance.services);
    const token = instance.token;
    const brand = async () => (await (await server.request("/api/v1/settings/brand", { token })).json()) as { timeZone: string };
    expect((await brand()).timeZone).toBe("UTC");
    const bad = await server.request("/api/v1/settings/brand", { method: "PATCH", token, json: { timeZone: "+02:00" } });
    expect(bad.status).toBe(400);
    expect((await brand()).timeZone).toBe("UTC");
    await server.request("/api/v1/settings/brand", { method: "PATCH", token, json: { timeZone: "Europe/Berlin" } });
    expect((await brand()).timeZone).toBe("Europe/Berlin");
  });

  it("a lead imported as a contact gets the time zone of its coordinates (JSON and the CSV's lat/lng columns)", () => {
    const json = parseImport(JSON.stringify([{ placeId: "p1", name: "Zahnarzt Vaduz", email: "info@zahnarzt.li", lat: 47.141, lng: 9.5209 }]), "leads.json");
    expect(json[0]!.contact).toMatchObject({ email: "info@zahnarzt.li", timeZone: "Europe/Vaduz" });
    const csv = parseImport("place_id,name,email,lat,lng\np2,Bakery,hi@bakery.test,40.7128,-74.006\np3,Nowhere,x@y.test,,\n", "leads.csv");
    expect(csv[0]!.contact).toMatchObject({ timeZone: "America/New_York" });
    expect(csv[1]!.contact).not.toHaveProperty("timeZone");
  });
});
