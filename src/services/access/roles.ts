import { forbidden } from "../../core/errors.js";
import type { Role } from "../../core/schemas/team.js";
import type { Principal } from "./auth.js";

/**
 * Owners and admins manage a workspace: they alone add, verify and remove sending domains
 * and create, rotate and revoke team API keys; everything else is open to every member
 * (docs/api.md). Team API keys have no role.
 */
export function isManager(role: Role | null): boolean {
  return role === "owner" || role === "admin";
}

/** A 403 naming the action and the caller's role unless the caller manages the workspace. */
export function requireManager(principal: Principal, action: string): void {
  if (!isManager(principal.role)) throw forbidden(`only an owner or admin of the workspace can ${action} (your role: ${principal.role ?? "none"})`);
}
