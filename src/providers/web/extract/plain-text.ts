/**
 * Plain text for a lead: tags dropped, control and invisible characters removed,
 * whitespace collapsed, cut at `max` characters on a word boundary (ending "…").
 * Linear on any input: the tag pattern is bounded and the input is cut first.
 */
export function plainText(text: string, max: number): string {
  const flat = text
    .slice(0, max * 4)
    .replace(/<[^<>]{0,500}>/g, " ")
    .replace(/[\u0000-\u001f\u007f\u00ad\u200b-\u200d\u2060\ufeff]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return (space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd() + "…";
}
