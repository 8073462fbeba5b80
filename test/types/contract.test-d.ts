import { describe, expectTypeOf, test } from "vitest";
import type { ApiClient, CallResult } from "../../src/client/api-client.js";
import type { Contact } from "../../src/core/schemas/contact.js";
import type { RouteBinding, RouteBindings, RouteHandler } from "../../src/server/route.js";

declare const client: ApiClient;
declare const services: Parameters<RouteHandler<"contacts.get">>[0]["services"];

describe("the contract types the server's handlers", () => {
  test("a handler answers what its operation's response schema accepts", () => {
    const right: RouteBinding<"contacts.get"> = ({ principal, params }) => ({ contact: services.contacts.get(principal.teamId, params.id) });
    // @ts-expect-error the contact's fields are missing: `{contact: string}` is not a ContactResponse
    const wrong: RouteBinding<"contacts.get"> = ({ params }) => ({ contact: params.id });
    // @ts-expect-error a plain route cannot answer a raw Response (only streaming operations can)
    const raw: RouteBinding<"contacts.get"> = () => new Response("");
    const stream: RouteBinding<"leads.search"> = { handler: () => new Response(""), errorBody: () => ({}) };
    expectTypeOf([right, wrong, raw, stream]).not.toBeNever();
  });

  test("a handler gets the body, query and path parameters its operation declares", () => {
    const handler: RouteBinding<"contacts.update"> = ({ body, params }) => {
      expectTypeOf(params.id).toEqualTypeOf<string>();
      expectTypeOf(body.email).toEqualTypeOf<string | undefined>();
      // @ts-expect-error contacts.update has no query
      void body.query;
      return { contact: services.contacts.get("team", params.id) };
    };
    expectTypeOf(handler).not.toBeNever();
  });

  test("every operation needs its handler", () => {
    // @ts-expect-error an empty table misses every operation
    const none: RouteBindings = {};
    expectTypeOf(none).not.toBeNever();
  });
});

describe("the contract types the client's calls", () => {
  test("results are the response schema's output", () => {
    expectTypeOf<CallResult<"contacts.get">>().toEqualTypeOf<{ contact: Contact }>();
    expectTypeOf(client.call("user.me")).resolves.toHaveProperty("email");
  });

  test("inputs are checked: required parts, their fields and their types", async () => {
    await client.call("contacts.add", { body: { email: "a@b.example", name: "A" } });
    // @ts-expect-error name is required
    await client.call("contacts.add", { body: { email: "a@b.example" } });
    // @ts-expect-error the body is required
    await client.call("contacts.add");
    // @ts-expect-error params.id is required
    await client.call("contacts.get", { params: {} });
    // @ts-expect-error contacts.get takes no body
    await client.call("contacts.get", { params: { id: "ct_1" }, body: {} });
    await client.call("contacts.list", { query: { page: 2, search: "ada" } });
    // @ts-expect-error not a query parameter of the contact list
    await client.call("contacts.list", { query: { sort: "name" } });
    // @ts-expect-error an unknown operation
    await client.call("contacts.purge");
  });

  test("only streaming operations stream, and their lines are typed", async () => {
    for await (const line of client.stream("leads.search", { body: { location: "Vaduz", keywords: "dentist" } })) {
      if (line.type === "complete") expectTypeOf(line.data.nextPageToken).toEqualTypeOf<string | null>();
      else expectTypeOf(line.data.leads).toBeArray();
    }
    // @ts-expect-error the contact list does not stream
    client.stream("contacts.list");
  });
});
