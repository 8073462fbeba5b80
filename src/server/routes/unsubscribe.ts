import { escapeHtml } from "../../services/sending/message-body.js";
import type { RouteBindings } from "../route.js";
import { unsubscribePage } from "../unsubscribe-page.js";

export const unsubscribeRoutes = {
  "unsubscribe.page": ({ services, params }) => {
    const target = services.unsubscribe.describe(params.token);
    if (!target) return unsubscribePage(404, "Link not recognised", "<p>This unsubscribe link is not valid. If you copied it, check that it is complete.</p>");
    const who = target.brandName ? ` from ${escapeHtml(target.brandName)}` : "";
    return unsubscribePage(
      200,
      "Unsubscribe",
      `<p>Do you want to stop receiving these emails${who}?</p>
<form method="post">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button>
</form>`,
    );
  },
  "unsubscribe.oneClick": ({ services, params }) => {
    const target = services.unsubscribe.unsubscribe(params.token);
    if (!target) return unsubscribePage(404, "Link not recognised", "<p>This unsubscribe link is not valid. If you copied it, check that it is complete.</p>");
    const who = target.brandName ? ` from ${escapeHtml(target.brandName)}` : "";
    return unsubscribePage(200, "You are unsubscribed", `<p role="status">You will not receive these emails${who} any more.</p>`);
  },
} satisfies Partial<RouteBindings>;
