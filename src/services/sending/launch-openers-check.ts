import { conflict } from "../../core/errors.js";
import type { CampaignRow } from "../../store/campaigns.js";
import type { ContactOpenerStore } from "../contacts/contact-openers.js";

/** `contact.opener` in any step's subject or body (also `contact["opener"]`). */
const USES_OPENER = /contact\s*(\.\s*opener\b|\[\s*["']opener["']\s*\])/;

export function usesOpener(campaign: Pick<CampaignRow, "subject" | "body_markdown" | "follow_ups">): boolean {
  return USES_OPENER.test(`${campaign.subject}\n${campaign.body_markdown}\n${campaign.follow_ups}`);
}

/**
 * Launch refuses (409) while a template of the campaign uses `{{ contact.opener }}` and a
 * selected contact has none: the message would start with a hole. Names up to 10 of them
 * and the count, so the user can generate or write the missing ones.
 */
export function assertOpenersPresent(campaign: CampaignRow, contactIds: readonly string[], openers: Pick<ContactOpenerStore, "missing"> | undefined): void {
  if (!openers || !usesOpener(campaign)) return;
  const missing = openers.missing(campaign.id, contactIds);
  if (missing.length === 0) return;
  const named = missing.slice(0, 10).join(", ");
  throw conflict(
    `the campaign uses {{ contact.opener }} and ${missing.length} selected contact(s) have none: ${named}${missing.length > 10 ? ", …" : ""}; ` +
      `generate them with POST /api/v1/campaigns/${campaign.id}/openers or set them with PATCH …/openers/{contactId}`,
    { body: { missingOpeners: missing.length } },
  );
}
