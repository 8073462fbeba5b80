import { createPlaces, type Geocoder, type PlaceSearchProvider, type PlacesImportService, type RegionDownloadService } from "../places/index.js";
import { AiModel } from "./sending/ai-model.js";
import { AuthService } from "./access/auth.js";
import { BrandService } from "./sending/brand.js";
import { CampaignService } from "./sending/campaigns.js";
import { CampaignDraftService } from "./sending/campaign-drafts.js";
import { ContactOpenerService } from "./contacts/contact-opener-service.js";
import { ContactOpenerStore, contactOpenersColumnSet } from "./contacts/contact-openers.js";
import { CampaignExecutionService } from "./sending/campaign-executions.js";
import { SequenceSteps } from "./sending/sequence-steps.js";
import { ContactService } from "./contacts/contacts.js";
import { contactsColumnSet } from "./contacts/contacts-encryption.js";
import type { ServiceDeps } from "./deps.js";
import { EnrichmentService } from "./leads/enrichment.js";
import { IdempotencyService } from "./idempotency.js";
import { IdentityService } from "./access/identity.js";
import { KeyRotationService } from "./key-rotation.js";
import { KeyringSource } from "./keyring-source.js";
import type { LeadEnricher } from "./leads/lead-enricher.js";
import { LeadSearchService } from "./leads/lead-search.js";
import { PersonalTokenService } from "./access/personal-tokens.js";
import { PlanService } from "./access/plans.js";
import { QuotaService } from "./access/quota.js";
import { RateLimiter } from "./access/rate-limit.js";
import { SendingDomainService, sendingDomainsColumnSet } from "./sending/sending-domains.js";
import { TeamApiKeyService } from "./access/team-api-keys.js";
import { TeamService } from "./access/teams.js";
import { BounceService } from "./sending/bounces.js";
import { DeliveryService, type DeliveryHooks } from "./sending/delivery.js";
import { MessageTemplates } from "./sending/message-template.js";
import { OutgoingMessages } from "./sending/outgoing-message.js";
import { SuppressionList, suppressionsColumnSet } from "./contacts/suppressions.js";
import { UnsubscribeService } from "./sending/unsubscribe.js";
import { VerificationService } from "./contacts/verification.js";
import { instanceSecretsColumnSet, UnsubscribeTokens } from "./sending/unsubscribe-tokens.js";
import type { Relay } from "../providers/smtp/relay.js";
import { ReplyRecords, repliesColumnSet } from "./replies/reply-records.js";

export type { ServiceDeps } from "./deps.js";

export interface Services {
  deps: ServiceDeps;
  plans: PlanService;
  identity: IdentityService;
  auth: AuthService;
  /** The caller's own personal access tokens (list, create, revoke). */
  personalTokens: PersonalTokenService;
  teams: TeamService;
  rateLimiter: RateLimiter;
  /** `Idempotency-Key`: the first answer of a repeated create or send. */
  idempotency: IdempotencyService;
  sendingDomains: SendingDomainService;
  campaigns: CampaignService;
  /** The configured AI model (OUTREACH_AI_*): a 503 naming the variables when there is none. */
  ai: AiModel;
  /** AI drafts of a campaign's copy. */
  campaignDrafts: CampaignDraftService;
  /** `{{ contact.opener }}`: generated, listed, edited. */
  openers: ContactOpenerService;
  /** Sequences: the later steps of multi-step campaigns. */
  sequences: SequenceSteps;
  /** Cancel a one-time campaign, resolve unconfirmed executions. */
  campaignExecutions: CampaignExecutionService;
  teamApiKeys: TeamApiKeyService;
  brand: BrandService;
  placesImport: PlacesImportService;
  /** `outreach places download|update`: Geofabrik extracts cached in the data directory. */
  regionDownloads: RegionDownloadService;
  /** Website enrichment; also the LeadEnricher the lead search calls. */
  enrichment: EnrichmentService;
  quota: QuotaService;
  /** Where leads come from: the configured place sources (local index, Google, Overpass) behind one provider; tests may replace it. */
  placeProvider: PlaceSearchProvider;
  geocoder: Geocoder;
  /** Website enrichment of search results: the enrichment service (a pass-through with OUTREACH_ENRICH=0). */
  leadEnricher: LeadEnricher;
  leadSearch: LeadSearchService;
  /** The keyring, following the key file while a rotation in another process runs. */
  keys: KeyringSource;
  contacts: ContactService;
  /** Registry of encrypted columns and the re-encryption of `outreach admin keys rotate`. */
  keyRotation: KeyRotationService;
  /** Campaign content: Liquid templates checked at save time, rendered per contact. */
  templates: MessageTemplates;
  /** Messages as they are sent (and previewed). */
  messages: OutgoingMessages;
  suppressions: SuppressionList;
  unsubscribe: UnsubscribeService;
  /** Address verification (`POST /api/v1/contacts/verify`), and its greylisting retries. */
  verification: VerificationService;
  /** Replies read from the mailbox: recorded by the sync, listed by the API. */
  replies: ReplyRecords;
}

/**
 * The delivery loop of a data directory (`serve` with OUTREACH_SMTP_URL, `deliver`): built
 * apart from the request services since it needs a relay and a log.
 */
export function createDelivery(services: Services, options: { relay: Relay; log: (line: string) => void; hooks?: DeliveryHooks; pid?: number; processAlive?: (pid: number) => boolean; concurrency?: number; batchSize?: number }): DeliveryService {
  const { db, clock, config } = services.deps;
  return new DeliveryService({
    db,
    clock,
    config,
    keys: services.keys,
    contacts: services.contacts,
    brand: services.brand,
    plans: services.plans,
    sendingDomains: services.sendingDomains,
    suppressions: services.suppressions,
    messages: services.messages,
    sequences: services.sequences,
    ...options,
    // After `options`: one given as undefined (the test helper's) takes the default, not none.
    // Twice the connections in hand: while one message is on the wire the next is being
    // composed and signed, so a connection never waits for the signer. A larger batch
    // makes fewer claim transactions.
    concurrency: options.concurrency ?? (config.smtp ? config.smtp.connections * 2 : undefined),
    batchSize: options.batchSize ?? (config.smtp ? config.smtp.connections * 8 : undefined),
  });
}

/** The handler of delivery status notifications (`serve --smtp-port`). */
export function createBounces(services: Services, log: (line: string) => void): BounceService {
  const { db, clock } = services.deps;
  return new BounceService({ db, clock, contacts: services.contacts, suppressions: services.suppressions, log });
}

/**
 * Wire the services of one data directory. Each gets its dependencies by name; nothing
 * here does work beyond building objects (the contacts' n-gram backfill and what the
 * places index is owed, `placesImport.catchUp`, run in `openInstance`).
 */
export function createServices(deps: ServiceDeps): Services {
  const { db, clock, config } = deps;
  const plans = new PlanService({ db });
  const identity = new IdentityService({ db, clock, plans });
  const auth = new AuthService({ db, clock });
  const personalTokens = new PersonalTokenService({ db, clock, identity });
  const teams = new TeamService({ db });
  const rateLimiter = new RateLimiter({ clock, limitPerMinute: config.rateLimitPerMinute });
  const idempotency = new IdempotencyService({ db, clock });
  const keys = new KeyringSource(deps);
  const contacts = new ContactService({ db, clock, keys, plans });
  const keyRotation = new KeyRotationService({ db });
  keyRotation.register(contactsColumnSet(db));
  keyRotation.register(sendingDomainsColumnSet());
  keyRotation.register(suppressionsColumnSet(db));
  keyRotation.register(instanceSecretsColumnSet());
  keyRotation.register(repliesColumnSet());
  keyRotation.register(contactOpenersColumnSet());
  const sendingDomains = new SendingDomainService({ db, clock, config, dkimKeys: deps.dkimKeys, plans, keys });
  const brand = new BrandService({ db, clock });
  const templates = new MessageTemplates();
  const tokens = new UnsubscribeTokens({ db, keys });
  const suppressions = new SuppressionList({ db, keys });
  // Without OUTREACH_PUBLIC_URL nothing is delivered (the config refuses OUTREACH_SMTP_URL
  // without it); previews then show links to the default local address.
  const openerStore = new ContactOpenerStore({ db, keys });
  const messages = new OutgoingMessages({
    templates,
    tokens,
    publicUrl: config.publicUrl ?? "http://127.0.0.1:8787",
    openerOf: (teamId, campaignId, contactId) => openerStore.get(teamId, campaignId, contactId)?.opener,
  });
  const sequences = new SequenceSteps({ db, clock });
  const campaigns = new CampaignService({ db, clock, templates, brand, contacts, sendingDomains, messages: () => messages, sequences, openers: openerStore });
  const campaignExecutions = new CampaignExecutionService({ db, clock, sequences });
  const ai = new AiModel(config.ai);
  const campaignDrafts = new CampaignDraftService({ ai, brand, contacts, campaigns, templates });
  const openers = new ContactOpenerService({ ai, brand, contacts, campaigns, store: openerStore, clock });
  const unsubscribe = new UnsubscribeService({ db, clock, tokens, contacts, suppressions, brand });
  const replies = new ReplyRecords({ db, clock, keys, contacts });
  const teamApiKeys = new TeamApiKeyService({ db, clock });
  auth.registerResolver("key", (hash, now) => teamApiKeys.resolve(hash, now));
  const places = createPlaces({ db, clock, dataDir: deps.dataDir, cacheDir: deps.cacheDir, settings: config });
  const { imports: placesImport, downloads: regionDownloads, sources: placeProvider, geocoder } = places;
  const enrichment = new EnrichmentService({ db, clock, config });
  const quota = new QuotaService({ db, clock, plans });
  // The enrichment service passes leads through untouched when OUTREACH_ENRICH=0.
  const leadEnricher: LeadEnricher = enrichment;
  const leadSearch = new LeadSearchService({ clock, keyring: deps.keyring, plans, contacts, quota, provider: placeProvider, sourceNames: placeProvider.names, geocoder, enricher: leadEnricher });
  return {
    deps,
    plans,
    identity,
    auth,
    personalTokens,
    teams,
    rateLimiter,
    idempotency,
    keys,
    contacts,
    keyRotation,
    sendingDomains,
    campaigns,
    ai,
    campaignDrafts,
    openers,
    sequences,
    campaignExecutions,
    teamApiKeys,
    brand,
    placesImport,
    regionDownloads,
    enrichment,
    quota,
    placeProvider,
    geocoder,
    leadEnricher,
    leadSearch,
    templates,
    messages,
    suppressions,
    unsubscribe,
    verification: new VerificationService({ db, clock, config, keys }),
    replies,
  };
}
