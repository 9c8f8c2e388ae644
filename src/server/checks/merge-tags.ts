/**
 * Merge tags of the common template languages: Handlebars/Mustache/Liquid output `{{ … }}`,
 * Liquid/Jinja/Nunjucks logic `{% … %}`, Mailchimp `*|…|*` (`*|FNAME|*`, and those with arguments:
 * `*|DATE:d/m/y|*`, `*|IF:AGE>=18|*`, `*|FEEDBLOCK:https://…|*`); and those of sending services that
 * only the service fills: Mailjet `[[…]]` (`[[HEADLINE]]`, `[[var:name:"there"]]`,
 * `[[PERMALINK]]`), Mailgun `%recipient.name%`, Salesforce `%%FirstName%%`, `%%=v(@name)=%%` and
 * AMPscript blocks `%%[ … ]%%`. Handlebars' triple braces `{{{ raw }}}` are one tag. Left in the
 * message, a recipient sees them as written.
 */
export const MERGE_TAG =
  /\{\{\{[\s\S]{0,200}?\}\}\}|\{\{[\s\S]{0,200}?\}\}|\{%[\s\S]{0,200}?%\}|\*\|[A-Za-z][^|\r\n]{0,200}?\|\*|\[\[[A-Za-z_][^\]\r\n]{0,200}?\]\]|%recipient(?:\.[\w-]+)*%|%%(?:[A-Za-z_][\w.-]{0,100}|=[^%\r\n]{1,200}?=|\[[\s\S]{0,200}?\])%%/g;

export function hasMergeTag(text: string): boolean {
  MERGE_TAG.lastIndex = 0;
  const found = MERGE_TAG.test(text);
  MERGE_TAG.lastIndex = 0;
  return found;
}
