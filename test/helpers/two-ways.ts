import { createApp } from "../../src/server/app.js";
import type { Services } from "../../src/services/index.js";
import { startTestServer, toRequestInit, type TestRequestInit } from "./server.js";

export type Requester = (path: string, init?: TestRequestInit) => Promise<Response>;

/**
 * h3's own habit: run the same HTTP test in-process (app.fetch, what the CLI's local
 * transport does) and over a real loopback socket (what `serve` does).
 */
export const transports: Array<[string, (services: Services) => Promise<Requester>]> = [
  [
    "in-process",
    async (services) => {
      const app = createApp(services, { log: () => {} });
      return (path, init) => app.fetch(new Request(`http://outreach.local${path}`, { ...toRequestInit(init), duplex: "half" } as RequestInit));
    },
  ],
  ["socket", async (services) => (await startTestServer(services)).request],
];
