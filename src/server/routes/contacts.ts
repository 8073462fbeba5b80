import { AppError } from "../../core/errors.js";
import { LineQueue } from "../line-queue.js";
import { ndjsonResponse } from "../ndjson.js";
import type { RouteBindings } from "../route.js";

export const contactRoutes = {
  "contacts.add": ({ services, principal, body }) => ({ success: true, contact: services.contacts.add(principal.teamId, body) }),
  // Between two of its slices the import waits for a write turn: reads get as much time as each slice took.
  "contacts.import": ({ services, principal, body, turn }) => services.contacts.addMany(principal.teamId, body.contacts, body.tags ?? [], { pause: () => turn("write") }),
  "contacts.verify": async ({ services, principal, body, signal, cutoff, wantsNdjson, log }) => {
    // Checked before the first byte: a bad id is an ordinary 404, never a stream line.
    const verification = services.verification.accept(principal.teamId, body);
    // A server shutting down stops the run with what it has (each contact is written as it is checked).
    const stop = AbortSignal.any([signal, cutoff]);
    const lines = new LineQueue();
    const run = verification.run({ signal: stop, onProgress: wantsNdjson ? (progress) => lines.push({ type: "progress", data: progress }) : undefined }).catch((err: unknown) => {
      if (cutoff.aborted && !signal.aborted) throw new AppError("shutting_down", "the server is shutting down: the contacts verified so far keep their result; verify again to continue");
      throw err;
    });
    if (!wantsNdjson) return run;
    run.then(
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
