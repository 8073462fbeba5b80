import { generateRsaKeyPair, type DkimKeyGenerator, type DkimKeyPair } from "../../src/services/sending/dkim-keys.js";

/** Keys per test process, handed out in turn: enough that the domains of one test get different keys. */
const POOL_SIZE = 4;
let pool: Array<Promise<DkimKeyPair>> | undefined;
let next = 0;

/**
 * The DKIM key generator of tests: 1024-bit RSA keys, made once per test process and
 * reused, where the product makes a fresh 2048-bit key for every domain (a few hundred ms
 * of CPU each, which made the sending-domain tests the slowest of the suite). The keys
 * sign and verify the same way; one test checks the product's 2048 bits. Never written
 * to the repository: generated in memory at the first use.
 */
export const testDkimKeys: DkimKeyGenerator = () => {
  pool ??= Array.from({ length: POOL_SIZE }, () => generateRsaKeyPair(1024));
  return pool[next++ % POOL_SIZE]!;
};
