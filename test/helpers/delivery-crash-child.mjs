// A delivery process that kills itself (SIGKILL: no handler, no cleanup, like kill -9) at
// one step of one delivery: `node delivery-crash-child.mjs <dataDir> <hook>`, hook one of
// DeliveryHooks (afterClaim, beforeRecordSending, afterRecordSending, afterRelayAnswer).
// It runs the built product (dist/) with the settings in its environment
// (OUTREACH_SMTP_URL, OUTREACH_PUBLIC_URL), as `outreach deliver --until-empty` would.
import { openInstance } from "../../dist/services/instance.js";
import { createDelivery } from "../../dist/services/index.js";
import { relayFromConfig } from "../../dist/services/sending/delivery-runtime.js";

const [dataDir, hook] = process.argv.slice(2);
const instance = openInstance({ dataDir });
const die = () => {
  process.stderr.write(`killed at ${hook}\n`);
  process.kill(process.pid, "SIGKILL");
};
const delivery = createDelivery(instance.services, {
  relay: relayFromConfig(instance.services),
  log: (line) => process.stderr.write(line + "\n"),
  hooks: { [hook]: die },
  concurrency: 1,
  batchSize: 1,
});
await delivery.runUntilEmpty();
process.stderr.write("finished without reaching the hook\n");
process.exit(3);
