import { identity } from "./001-identity.js";
import { places } from "./002-places.js";
import { contacts } from "./003-contacts.js";
import { sendingDomains } from "./004-sending-domains.js";
import { campaigns } from "./005-campaigns.js";
import { teamApiKeys } from "./006-team-api-keys.js";
import { brandSettings } from "./007-brand-settings.js";
import { placeImports } from "./008-place-imports.js";
import { enrichment } from "./009-enrichment.js";
import { searchQuota } from "./010-search-quota.js";
import { placeTerms } from "./011-place-terms.js";
import { contactNgrams } from "./012-contact-ngrams.js";
import { placePostings } from "./013-place-postings.js";
import { dropPlacesFts } from "./014-drop-places-fts.js";
import { categoryTags } from "./015-category-tags.js";
import { namedPlaces } from "./016-named-places.js";
import { sending } from "./017-sending.js";
import { idempotencyKeys } from "./018-idempotency-keys.js";
import { postingsFromPlaces } from "./019-postings-from-places.js";
import { placeSourceFingerprint } from "./020-place-source-fingerprint.js";
import { postingsByTerm } from "./021-postings-by-term.js";
import { sequences } from "./022-sequences.js";
import { packedContactGrams } from "./023-packed-contact-grams.js";
import { contactVerification } from "./027-contact-verification.js";
import { contactOpeners } from "./028-contact-openers.js";
import { labelTextBesideTags } from "./029-label-text-beside-tags.js";
import { placeLabelWords } from "./030-place-label-words.js";
import { dkimEd25519 } from "./031-dkim-ed25519.js";
import { contactGramTail } from "./032-contact-gram-tail.js";
import type { Migration } from "./migration.js";

export type { Migration } from "./migration.js";

/**
 * Append-only. A migration's version is its position in this list (1-based) and is
 * stored in `PRAGMA user_version`. Add new ones at the end; never edit a shipped one.
 */
export const MIGRATIONS: readonly Migration[] = [
  identity,
  places,
  contacts,
  sendingDomains,
  campaigns,
  teamApiKeys,
  brandSettings,
  placeImports,
  enrichment,
  searchQuota,
  placeTerms,
  contactNgrams,
  placePostings,
  dropPlacesFts,
  categoryTags,
  namedPlaces,
  sending,
  idempotencyKeys,
  postingsFromPlaces,
  placeSourceFingerprint,
  postingsByTerm,
  sequences,
  packedContactGrams,
  contactVerification,
  contactOpeners,
  labelTextBesideTags,
  placeLabelWords,
  dkimEd25519,
  contactGramTail,
];
