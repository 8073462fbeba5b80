import type { Db } from "./db.js";

export interface InstanceSecretRow {
  name: string;
  value_ct: string;
  key_id: string;
}

/** What the key rotation needs to re-encrypt these secrets; the AAD binds each to its name. */
export const INSTANCE_SECRET_COLUMNS = {
  table: "instance_secrets",
  idColumn: "name",
  keyIdColumn: "key_id",
  columns: ["value_ct"],
  aad: (name: string) => `instance_secrets|${name}|value_ct`,
} as const;

/** Secrets of the data directory itself (not of a workspace), encrypted with the master key. */
export class InstanceSecretsRepo {
  constructor(private readonly db: Db) {}

  byName(name: string): InstanceSecretRow | undefined {
    return this.db.prepare("SELECT * FROM instance_secrets WHERE name = ?").get(name) as InstanceSecretRow | undefined;
  }

  /** Insert unless present; the row that is there afterwards is returned (two processes may race to create it). */
  insertOnce(row: InstanceSecretRow): InstanceSecretRow {
    this.db.prepare("INSERT INTO instance_secrets (name, value_ct, key_id) VALUES (@name, @value_ct, @key_id) ON CONFLICT (name) DO NOTHING").run(row);
    return this.byName(row.name)!;
  }
}
