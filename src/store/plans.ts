import { StatementCache, type Db } from "./db.js";

export interface PlanRow {
  name: string;
  daily_searches: number | null;
  max_contacts: number | null;
  custom_sender: number;
  /** Messages a workspace may hand to the relay per UTC day; NULL: unlimited. */
  daily_sends: number | null;
}

export class PlansRepo {
  private readonly statements: StatementCache;

  constructor(private readonly db: Db) {
    this.statements = new StatementCache(db);
  }

  all(): PlanRow[] {
    return this.db.prepare("SELECT * FROM plans ORDER BY name").all() as PlanRow[];
  }

  byName(name: string): PlanRow | undefined {
    return this.statements.get("SELECT * FROM plans WHERE name = ?").get(name) as PlanRow | undefined;
  }

  upsert(row: PlanRow): void {
    this.db
      .prepare(
        `INSERT INTO plans (name, daily_searches, max_contacts, custom_sender, daily_sends)
         VALUES (@name, @daily_searches, @max_contacts, @custom_sender, @daily_sends)
         ON CONFLICT(name) DO UPDATE SET daily_searches = excluded.daily_searches, max_contacts = excluded.max_contacts,
           custom_sender = excluded.custom_sender, daily_sends = excluded.daily_sends`,
      )
      .run(row);
  }
}
