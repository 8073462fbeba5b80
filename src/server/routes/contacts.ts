import { SuccessBody } from "../../core/schemas/common.js";
import {
  AddContactResponse,
  ContactImportBody,
  ContactImportResponse,
  ContactInput,
  ContactList,
  ContactListQuery,
  ContactResponse,
  ContactUpdate,
} from "../../core/schemas/contact.js";
import { defineRoute } from "../route.js";

export const contactRoutes = [
  defineRoute({
    method: "POST",
    path: "/api/v1/contacts/add",
    operationId: "addContact",
    summary: "Create a contact in the active workspace",
    description: "Emails are unique per workspace, compared case-insensitively (409). The plan's contact limit is a 403 `contact_limit_reached`.",
    tag: "contacts",
    endpoint: 9,
    auth: "user",
    body: ContactInput,
    response: AddContactResponse,
    errors: [403, 409],
    handler: ({ services, principal, body }) => ({ success: true as const, contact: services.contacts.add(principal.teamId, body) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/contacts/import",
    operationId: "importContacts",
    summary: "Create up to 500 contacts at once; each item is reported created, duplicate, invalid or limit_reached",
    description:
      "The import's batch path. Every item is validated like the body of addContact; an invalid item never stops the others. `tags` are added to every item.",
    tag: "contacts",
    addition: true,
    auth: "user",
    body: ContactImportBody,
    response: ContactImportResponse,
    handler: ({ services, principal, body }) => services.contacts.addMany(principal.teamId, body.contacts, body.tags ?? []),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/contacts",
    operationId: "listContacts",
    summary: "List the active workspace's contacts, newest first, with filters",
    description:
      "`search`: case-insensitive substring of the email (searches shorter than 3 characters scan at most 5,000 contacts, else 400); `tags`: comma list, any of; `status`: comma list of active, unsubscribed. Out-of-range values are a 400.",
    tag: "contacts",
    endpoint: 10,
    auth: "user",
    query: ContactListQuery,
    response: ContactList,
    handler: ({ services, principal, query }) => services.contacts.list(principal.teamId, query),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/contacts/:id",
    operationId: "getContact",
    summary: "One contact of the active workspace",
    tag: "contacts",
    endpoint: 11,
    auth: "user",
    response: ContactResponse,
    errors: [404],
    handler: ({ services, principal, params }) => ({ contact: services.contacts.get(principal.teamId, params.id!) }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/contacts/:id",
    operationId: "updateContact",
    summary: "Change any non-empty subset of email, name, phone, description, tags",
    tag: "contacts",
    endpoint: 12,
    auth: "user",
    body: ContactUpdate,
    response: ContactResponse,
    errors: [404, 409],
    handler: ({ services, principal, params, body }) => ({ contact: services.contacts.update(principal.teamId, params.id!, body) }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/contacts/:id",
    operationId: "deleteContact",
    summary: "Delete a contact",
    tag: "contacts",
    endpoint: 13,
    auth: "user",
    response: SuccessBody,
    errors: [404],
    handler: ({ services, principal, params }) => {
      services.contacts.delete(principal.teamId, params.id!);
      return { success: true as const };
    },
  }),
];


