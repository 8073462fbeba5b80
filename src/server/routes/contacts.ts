import { LineQueue } from "../line-queue.js";
import { ndjsonResponse } from "../ndjson.js";
import type { RouteBindings } from "../route.js";

export const contactRoutes = {
  "contacts.add": ({ services, principal, body }) => ({ success: true, contact: services.contacts.add(principal.teamId, body) }),
  "contacts.import": ({ services, principal, body }) => services.contacts.addMany(principal.teamId, body.contacts, body.tags ?? []),
  "contacts.verify": async ({ services, principal, body, signal, wantsNdjson, log }) => {
    // Checked before the first byte: a bad id is an ordinary 404, never a stream line.
    const verification = services.verification.accept(principal.teamId, body);
    if (!wantsNdjson) return verification.run({ signal });
    const lines = new LineQueue();
    verification
      .run({ signal, onProgress: (progress) => lines.push({ type: "progress", data: progress }) })
      .then(
        (done) => lines.push({ type: "complete", data: done }),
        (err: unknown) => lines.fail(err),
      );
    return ndjsonResponse(lines, { log });
  },
  "contacts.list": ({ services, principal, query }) => services.contacts.list(principal.teamId, query),
  "contacts.get": ({ services, principal, params }) => ({ contact: services.contacts.get(principal.teamId, params.id) }),
  "contacts.update": ({ services, principal, params, body }) => ({ contact: services.contacts.update(principal.teamId, params.id, body) }),
  "contacts.delete": ({ services, principal, params }) => {
    services.contacts.delete(principal.teamId, params.id);
    return { success: true };
  },
} satisfies Partial<RouteBindings>;
