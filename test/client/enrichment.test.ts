import { describe, expect, it } from "vitest";
import { mergeRetriedLeads } from "../../src/client/enrichment.js";
import { placeLead } from "../helpers/leads.js";

describe("mergeRetriedLeads", () => {
  it("replaces retried leads by placeId, keeps order and the leads the retry did not cover", () => {
    const search = [placeLead("1", "http://a.de/"), { ...placeLead("2", "http://b.de/"), enrichmentPending: true }, placeLead("3", null)];
    const retried = [{ ...placeLead("2", "http://b.de/"), email: "info@b.de", enrichmentPending: false }, placeLead("9", null)];
    const merged = mergeRetriedLeads(search, retried);
    expect(merged.map((l) => [l.placeId, l.email, l.enrichmentPending])).toEqual([
      ["place-1", null, undefined],
      ["place-2", "info@b.de", false],
      ["place-3", null, undefined],
    ]);
  });
});
