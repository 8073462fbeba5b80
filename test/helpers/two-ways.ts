import { createApp } from "../../src/server/app.js";
import type { Services } from "../../src/services/index.js";
import { startTestServer } from "./server.js";

export type Requester = (path: string, init?: RequestInit & { token?: string; json?: unknown }) => Promise<Response>;

/**
 * h3's own habit: run the same HTTP test in-process (app.fetch, what the CLI's local
 * transport does) and over a real loopback socket (what `serve` does).
 */
export const transports: Array<[string, (services: Services) => Promise<Requester>]> = [
  [
    "in-process",
    async (services) => {
      const app = createApp(services, { log: () => {} });
      return (path, init = {}) => {
        const { token, json, ...rest } = init;
        const headers = new Headers(rest.headers);
        if (token) headers.set("authorization", `Bearer ${token}`);
        let body = rest.body;
        if (json !== undefined) {
          headers.set("content-type", "application/json");
          body = JSON.stringify(json);
        }
        return app.fetch(new Request(`http://outreach.local${path}`, { ...rest, headers, body, duplex: "half" } as RequestInit));
      };
    },
  ],
  ["socket", async (services) => (await startTestServer(services)).request],
];
