import type { Server } from "node:http";
import { afterEach } from "vitest";

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** Close this HTTP server (and drop its connections) when the current test ends. */
export function closeAfterEach(server: Server): Server {
  servers.push(server);
  return server;
}
