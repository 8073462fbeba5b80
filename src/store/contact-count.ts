import type { Db } from "./db.js";

/** How many contacts a workspace holds (for the plan's contact limit on the lead search). */
export function countContacts(db: Db, teamId: string): number {
  return (db.prepare("SELECT count(*) AS n FROM contacts WHERE team_id = ?").get(teamId) as { n: number }).n;
}
