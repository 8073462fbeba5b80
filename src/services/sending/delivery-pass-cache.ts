import type { BrandSettings } from "../../core/schemas/brand.js";
import type { SigningKeysPem } from "../../providers/smtp/signing-threads.js";
import { CampaignsRepo, type CampaignRow } from "../../store/campaigns.js";
import type { Db } from "../../store/db.js";
import type { BrandService } from "./brand.js";
import type { SendingDomainService } from "./sending-domains.js";

type Sender = NonNullable<ReturnType<SendingDomainService["sender"]>>;

/**
 * What every message of a claimed batch shares, read once per batch instead of once per
 * message: the campaign, the workspace's brand, the sending domain's sender and its DKIM
 * keys (decrypted once: the AES-GCM open and the key's row cost as much as the rest of the
 * bookkeeping). The next batch reads everything afresh, so an edit or a key rotation takes
 * effect at the next batch, even within a pass that claims batch after batch.
 */
export class DeliveryPassCache {
  private readonly campaignsById = new Map<string, CampaignRow | undefined>();
  private readonly brands = new Map<string, BrandSettings>();
  private readonly senders = new Map<string, Sender | undefined>();
  private readonly keys = new Map<string, SigningKeysPem>();
  private readonly campaignsRepo: CampaignsRepo;

  constructor(
    private readonly deps: { db: Db; brand: BrandService; sendingDomains: SendingDomainService },
  ) {
    this.campaignsRepo = new CampaignsRepo(deps.db);
  }

  campaign(teamId: string, campaignId: string): CampaignRow | undefined {
    return remembered(this.campaignsById, campaignId, () => this.campaignsRepo.byId(teamId, campaignId));
  }

  brand(teamId: string): BrandSettings {
    return remembered(this.brands, teamId, () => this.deps.brand.forTeam(teamId));
  }

  sender(teamId: string, domainId: string): Sender | undefined {
    return remembered(this.senders, domainId, () => this.deps.sendingDomains.sender(teamId, domainId));
  }

  /** The domain's keys for the signing threads: RSA, and Ed25519 when it signs with both. */
  signingKeys(teamId: string, domainId: string): SigningKeysPem {
    return remembered(this.keys, domainId, () => {
      const key = this.deps.sendingDomains.dkimSigningKey(teamId, domainId);
      return {
        rsa: { domainName: key.domain, keySelector: key.selector, privateKey: key.privateKeyPem },
        ...(key.ed25519 ? { ed25519: { domainName: key.domain, keySelector: key.ed25519.selector, privateKey: key.ed25519.privateKeyPem } } : {}),
      };
    });
  }
}

function remembered<K, V>(map: Map<K, V>, key: K, read: () => V): V {
  if (map.has(key)) return map.get(key) as V;
  const value = read();
  map.set(key, value);
  return value;
}
