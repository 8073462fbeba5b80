import type { Db } from "../connection.js";

/** One schema change: `up` runs inside the transaction that also bumps `user_version`. */
export interface Migration {
  name: string;
  up(db: Db): void;
}
