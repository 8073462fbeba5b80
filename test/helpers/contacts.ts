import type { Services } from "../../src/services/index.js";

let counter = 0;

/**
 * A real contact (encrypted, blind-indexed) through the contacts service, for features
 * that only need one to exist: campaign triggers and executions.
 */
export function insertContact(services: Services, teamId: string, options: { status?: "active" | "unsubscribed" } = {}): string {
  counter += 1;
  return services.contacts.add(teamId, {
    email: `contact${counter}-${Date.now()}@example.org`,
    name: `Contact ${counter}`,
    status: options.status ?? "active",
  }).id;
}
