import { describe, expect, it } from "vitest";
import { builtBin } from "../helpers/built-bin.js";
import { cliEnv } from "../helpers/cli.js";
import { runBin } from "../helpers/serve-bin.js";
import { crashAt } from "../helpers/delivery-crash.js";
import { sendingSetup } from "../helpers/sending.js";

/**
 * A delivery process killed (SIGKILL) around the recording of a step-0 `sent`, with a
 * follow-up configured; then `outreach deliver --until-empty` (the built binary) takes
 * over. The follow-up exists exactly once when step 0 is sent and confirmed, and not at
 * all while step 0 is unconfirmed.
 */
describe("a delivery killed around a sent step creates its follow-up exactly once", () => {
  it.each([
    // hook, step 0's state after recovery, follow-ups that exist
    ["afterRecordSent", { status: "sent", unconfirmed: false }, 1],
    ["afterRelayAnswer", { status: "sent", unconfirmed: true }, 0],
  ] as const)("killed at %s", { timeout: 90_000 }, async (hook, stepZero, followUps) => {
    await builtBin();
    const setup = await sendingSetup();
    setup.addContact("bea@clinic-one.test");
    const { services } = setup.instance;
    const { campaignId } = await setup.launchOneTime({ subject: "Hello", body: "Hi.", followUps: [{ delay: "P1D", bodyMarkdown: "Again." }] });
    const env = cliEnv({ OUTREACH_SMTP_URL: `smtp://127.0.0.1:${setup.sink.port}`, OUTREACH_PUBLIC_URL: "http://127.0.0.1:9/outreach", OUTREACH_SEND_PER_MINUTE: "0" });

    const crash = await crashAt(setup.instance.dataDir, hook, env);
    expect(crash.signal, crash.stderr).toBe("SIGKILL");
    expect(crash.stderr).toContain(`killed at ${hook}`);

    // Recovery twice: a second run finds nothing more to create.
    for (let run = 0; run < 2; run++) {
      const recovery = await runBin(["deliver", "--until-empty", "--data-dir", setup.instance.dataDir], env);
      expect(recovery.code, recovery.stderr).toBe(0);
    }
    const executions = services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 10 }).executions;
    expect(executions.find((e) => e.step === 0)).toMatchObject(stepZero);
    expect(executions.filter((e) => e.step === 1)).toHaveLength(followUps);
    expect(setup.sink.received).toHaveLength(1);
    if (stepZero.unconfirmed) {
      // Confirming it lets the sequence go on: the follow-up now exists, once.
      const stepZeroId = executions.find((e) => e.step === 0)!.id;
      services.campaignExecutions.resolve(setup.principal, campaignId, stepZeroId, { action: "confirm" });
      const after = services.campaigns.executions(setup.principal, campaignId, { page: 1, limit: 10 }).executions;
      expect(after.filter((e) => e.step === 1)).toHaveLength(1);
    }
  });
});
