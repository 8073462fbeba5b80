import type { Migration } from "./migration.js";

/**
 * A sending domain's optional second DKIM key, Ed25519 (RFC 8463), beside the RSA one:
 * its selector and its private key, encrypted like the RSA key (under the row's `key_id`,
 * bound to its own column by the associated data). Both null until the domain opts in.
 */
export const dkimEd25519: Migration = {
  name: "sending_domains: an opt-in Ed25519 DKIM key beside the RSA one",
  up(db) {
    db.exec(`ALTER TABLE sending_domains ADD COLUMN dkim_ed25519_selector TEXT`);
    db.exec(`ALTER TABLE sending_domains ADD COLUMN dkim_ed25519_private_key_ct TEXT`);
  },
};
